package plots

import (
	"testing"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
)

// TestControlStylesDistinct: the figures of open-loop traffic tell the
// retry controls apart by colour and by glyph (for greyscale print), so no
// two of the standard controls may share either.
func TestControlStylesDistinct(t *testing.T) {
	colours, glyphs := map[any]string{}, map[any]string{}
	for _, c := range analysis.StandardControls() {
		s, name := controlStyle(c), controlName(c)
		if other, ok := colours[s.color]; ok {
			t.Errorf("%s and %s share a colour", name, other)
		}
		if other, ok := glyphs[s.shape]; ok {
			t.Errorf("%s and %s share a glyph", name, other)
		}
		colours[s.color], glyphs[s.shape] = name, name
	}
	if controlName(model.Controls{}) != "no control" {
		t.Errorf("the empty set of controls is named %q", controlName(model.Controls{}))
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
