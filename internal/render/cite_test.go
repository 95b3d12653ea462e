package render

import (
	"io"
	"strings"
	"testing"
)

// The cite line names the build, the command as a shell takes it back and
// the run; markdown sets the command as code.
func TestCiteLine(t *testing.T) {
	p := Provenance{Version: "0.9.0", Revision: "1a2b", Modified: true, Command: CommandLine([]string{"simulate", "--policy", "it's", "-n", "10"})}
	p = p.WithRun(1, 1000, "clients")
	want := `herd 0.9.0, revision 1a2b (modified); command: herd simulate --policy 'it'\''s' -n 10; seed 1, 1000 trials, engine clients`
	if p.Cite != want {
		t.Errorf("cite line\n got %s\nwant %s", p.Cite, want)
	}
	if md := p.Markdown(); !strings.HasPrefix(md, "Cite: herd 0.9.0") || !strings.Contains(md, "command: `herd simulate") {
		t.Errorf("markdown cite line %s", md)
	}
	doc, err := Document("csv", p, 0, func(w io.Writer) error { _, err := io.WriteString(w, "a,b\n"); return err })
	if err != nil || string(doc) != "# "+want+"\na,b\n" {
		t.Errorf("CSV document %q, %v", doc, err)
	}
}

func TestCitedArgsLeaveOutWhatChangesNothing(t *testing.T) {
	got := CitedArgs(strings.Fields("compare -n 5 --out /tmp/a --force --policy full,equal --out=/tmp/b --force=true"), map[string]string{"out": "DIR"}, "force")
	want := strings.Fields("compare -n 5 --out DIR --policy full,equal --out DIR")
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CitedArgs = %q, want %q", got, want)
	}
}
