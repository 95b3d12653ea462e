package plots

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/study"
)

// TestControlStylesDistinct: the figures of open-loop traffic tell the
// retry controls apart by colour and by glyph (for greyscale print), so no
// two of the standard controls may share either.
func TestControlStylesDistinct(t *testing.T) {
	colours, glyphs := map[any]string{}, map[any]string{}
	for _, c := range study.StandardControls() {
		s, name := controlStyle(c), controlName(c)
		if other, ok := colours[s.color]; ok {
			t.Errorf("%s and %s share a colour", name, other)
		}
		if other, ok := glyphs[s.shape]; ok {
			t.Errorf("%s and %s share a glyph", name, other)
		}
		colours[s.color], glyphs[s.shape] = name, name
	}
	if controlName(control.Controls{}) != "no control" {
		t.Errorf("the empty set of controls is named %q", controlName(control.Controls{}))
	}
}

// TestTint: a tint is opaque, keeps the colour at full opacity and fades
// to white at none.
func TestTint(t *testing.T) {
	if got := tint(vermillion, 1); got != vermillion {
		t.Errorf("tint(c, 1) = %v, want %v", got, vermillion)
	}
	if got := tint(vermillion, 0); got.R != 0xff || got.G != 0xff || got.B != 0xff || got.A != 0xff {
		t.Errorf("tint(c, 0) = %v, want opaque white", got)
	}
	if got := tint(bluishGreen, 0.3); got.A != 0xff || got.R <= bluishGreen.R {
		t.Errorf("tint(bluish green, 0.3) = %v: not an opaque lighter colour", got)
	}
}

// TestNotebooksUseHerdsPalette: the notebooks draw with herd's own
// colours (herd plots --palette, through herdjson.palette), never with
// colours of their own that drift from the figures'.
func TestNotebooksUseHerdsPalette(t *testing.T) {
	books, err := filepath.Glob("../notebooks/*.ipynb")
	if err != nil || len(books) == 0 {
		t.Fatalf("no notebooks found: %v", err)
	}
	hex := regexp.MustCompile(`#[0-9A-Fa-f]{6}\b`)
	for _, b := range books {
		raw, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				Type   string   `json:"cell_type"`
				Source []string `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(raw, &nb); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		for i, c := range nb.Cells {
			if c.Type != "code" {
				continue
			}
			if m := hex.FindString(strings.Join(c.Source, "")); m != "" {
				t.Errorf("%s, cell %d: colour %s typed in; use herdjson.palette() (herd plots --palette)", filepath.Base(b), i, m)
			}
		}
	}
	py, err := os.ReadFile("../notebooks/herdjson.py")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(py), `herd("plots", "--palette")`) {
		t.Error("notebooks/herdjson.py no longer reads the palette from herd plots --palette")
	}
	for _, e := range Palette() {
		if c := policyColor(policy.Kind(e.Policy)); fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) != e.Color {
			t.Errorf("Palette gives %s for %s, the figures draw %v", e.Color, e.Policy, c)
		}
	}
}
