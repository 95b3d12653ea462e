package herd

import (
	"strings"
	"testing"
)

// CITATION.cff parses and gives the version and date every cite line and
// `herd cite` print.
func TestCitation(t *testing.T) {
	c, err := Cite()
	if err != nil {
		t.Fatal(err)
	}
	if c.Version != Version() || len(c.Released) != len("2006-01-02") || c.Repository == "" || len(c.Authors) == 0 {
		t.Errorf("citation %+v", c)
	}
	b := c.BibTeX("abc")
	for _, want := range []string{"@software{herd,", "version = {" + c.Version + "}", "note    = {revision abc}", "year    = {" + c.Released[:4] + "}"} {
		if !strings.Contains(b, want) {
			t.Errorf("BibTeX lacks %q:\n%s", want, b)
		}
	}
}
