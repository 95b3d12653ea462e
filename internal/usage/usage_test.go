package usage

import (
	"fmt"
	"testing"

	"github.com/spf13/pflag"
)

// A Missing names what is missing and the flags given, each as the user
// could type it again; a flag set by the program and reset is not given.
func TestMissingNamesTheFlagsGiven(t *testing.T) {
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.Int("seed", 1, "")
	fs.String("label", "", "")
	fs.String("policy", "", "")
	fs.Bool("force", false, "")
	if err := fs.Parse([]string{"--seed", "3", "--label", "a|b\nc", "--force"}); err != nil {
		t.Fatal(err)
	}
	_ = fs.Set("policy", "full,equal")
	fs.Lookup("policy").Changed = false
	err := Explain(fmt.Errorf("wrapped: %w", Need("--out DIR")), "compare", fs)
	want := `compare needs --out DIR (given: --force=true --label="a|b\nc" --seed=3)`
	if err.Error() != want || !Refused(err) {
		t.Errorf("%q (refused %v), want %q, refused", err, Refused(err), want)
	}
}
