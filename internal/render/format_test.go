package render

import "testing"

func TestFormatOfGivenThenExtensionThenTerminal(t *testing.T) {
	md := append(append([]string(nil), Formats...), "markdown")
	for _, c := range []struct {
		given, path string
		allowed     []string
		terminal    bool
		want        string
	}{
		{"csv", "out.json", Formats, true, "csv"},
		{"", "out.JSON", Formats, true, "json"},
		{"", "r.csv", Formats, false, "csv"},
		{"", "r.txt", Formats, false, "table"},
		{"", "r.md", md, false, "markdown"},
		{"", "r.md", Formats, true, "json"}, // no markdown offered: a file gets JSON
		{"", "", Formats, true, "table"},
		{"", "", Formats, false, "json"},
	} {
		if got, err := FormatOf(c.given, c.allowed, c.path, c.terminal); err != nil || got != c.want {
			t.Errorf("FormatOf(%q, %v, %q, %v) = %q, %v; want %q", c.given, c.allowed, c.path, c.terminal, got, err, c.want)
		}
	}
	if _, err := FormatOf("markdown", Formats, "", true); err == nil {
		t.Error("markdown where it is not offered was accepted")
	}
}
