package plots

import (
	"fmt"
	"image/color"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/policy"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008):
// eight colours that people with the common forms of colour blindness still
// tell apart. Yellow is left out (it vanishes on white paper), and so is
// sky blue (too faint for thin lines beside the others).
var (
	black         = color.NRGBA{0x00, 0x00, 0x00, 0xff}
	orange        = color.NRGBA{0xe6, 0x9f, 0x00, 0xff}
	bluishGreen   = color.NRGBA{0x00, 0x9e, 0x73, 0xff}
	blue          = color.NRGBA{0x00, 0x72, 0xb2, 0xff}
	vermillion    = color.NRGBA{0xd5, 0x5e, 0x00, 0xff}
	reddishPurple = color.NRGBA{0xcc, 0x79, 0xa7, 0xff}
	grey          = color.NRGBA{0x77, 0x77, 0x77, 0xff}
)

// policyStyle is how one policy looks in every figure: its colour, and a
// glyph shape so that the policies stay apart in greyscale print too.
type policyStyle struct {
	color color.NRGBA
	shape draw.GlyphDrawer
}

// policyStyles fixes the look of each policy once, for all figures.
var policyStyles = map[policy.Kind]policyStyle{
	policy.None:         {black, draw.CircleGlyph{}},
	policy.Fixed:        {orange, draw.TriangleGlyph{}},
	policy.Expo:         {reddishPurple, draw.BoxGlyph{}},
	policy.Full:         {bluishGreen, draw.SquareGlyph{}},
	policy.Equal:        {blue, draw.PyramidGlyph{}},
	policy.Decorrelated: {vermillion, draw.RingGlyph{}},
}

func policyColor(k policy.Kind) color.NRGBA { return policyStyles[k].color }

// policyGlyph is the glyph that marks a Monte Carlo estimate of policy k.
func policyGlyph(k policy.Kind) draw.GlyphStyle {
	s := policyStyles[k]
	return draw.GlyphStyle{Color: s.color, Radius: vg.Points(3), Shape: s.shape}
}

// translucent is c at the opacity used for 95% bands: light enough that
// overlapping bands and the glyphs on them stay visible.
func translucent(c color.NRGBA) color.NRGBA {
	c.A = 0x40
	return c
}

// Line styles: Monte Carlo estimates are glyphs with thin joins, exact
// models are solid lines, approximations (mean field) are dashed, guides
// and references are dotted.
func solid(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1.5)}
}

func thin(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(0.75)}
}

func dashed(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
}

func dotted(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2.5)}}
}

// Fonts: sans serif reads better than gonum's default serif at figure
// sizes. The smallest (ticks, small print) is 11.5 pt so that the paper,
// which prints figures of paperWidth across its 6.38-in text width (at
// 64%), sets no text under 7 pt (TestPaperFigureTextAtLeast7pt). Titles are set larger,
// not bold: the PDF backend cannot select a bold face it embedded. Every
// string drawn must be in Windows-1252, the only code page the PDF backend's
// fonts have (cp1252Canvas encodes it; so "-", not "−", and "sqrt", not
// "√"; exponents are written 10^3 and drawn raised).
var (
	titleFont  = font.Font{Typeface: "Liberation", Variant: "Sans"}
	bodyFont   = font.Font{Typeface: "Liberation", Variant: "Sans"}
	titleSize  = vg.Points(16)
	panelSize  = vg.Points(12.5)
	labelSize  = vg.Points(12)
	tickSize   = vg.Points(11.5)
	legendSize = vg.Points(11.5)
	noteSize   = vg.Points(11.5)
)

// paperWidth is the width every figure is drawn at: the paper prints it
// upright across its text width, and 11.5 pt text stays above 7 pt on
// paper up to 10.48 in. Panels that would be too narrow at this width go
// on more rows (reflow) rather than the figure on a landscape page.
const paperWidth = 10 * vg.Inch

var gridColor = color.NRGBA{0xe4, 0xe4, 0xe4, 0xff}

// controlStyle is how one set of retry controls looks in the figures of
// open-loop traffic, where the policy is always Full Jitter: colour and
// glyph tell the controls apart (no control is black, as a baseline).
// Combinations take the look of their first control.
func controlStyle(c control.Controls) policyStyle {
	switch {
	case c.MaxAttempts > 0:
		return policyStyle{orange, draw.TriangleGlyph{}}
	case c.Bucket.Kind == control.AWSBucket:
		return policyStyle{blue, draw.SquareGlyph{}}
	case c.Bucket.Kind == control.BrookerBucket:
		return policyStyle{vermillion, draw.RingGlyph{}}
	case c.Breaker.Window > 0:
		return policyStyle{reddishPurple, draw.PyramidGlyph{}}
	}
	return policyStyle{black, draw.CircleGlyph{}}
}

// controlName is a set of controls as a legend reads it.
func controlName(c control.Controls) string {
	if s := c.String(); s != "none" {
		return s
	}
	return "no control"
}

// tint is c laid at opacity a over white paper, as an opaque colour: for
// filled cells, which must hide the grid lines under them.
func tint(c color.NRGBA, a float64) color.NRGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v)*a + 255*(1-a) + 0.5) }
	return color.NRGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// engineStyle is how each Monte Carlo engine looks in the figures that
// compare engines rather than policies: colours not used for Full Jitter
// (bluish green), the policy both engines play there.
var engineStyles = map[string]policyStyle{
	"clients": {vermillion, draw.CircleGlyph{}},
	"counts":  {blue, draw.SquareGlyph{}},
}

// engineStyleOf is engine e's look; an engine not listed is black.
func engineStyleOf(e string) policyStyle {
	if s, ok := engineStyles[e]; ok {
		return s
	}
	return policyStyle{black, draw.PyramidGlyph{}}
}

// engineGlyph marks engine e's measurements (few, spread-out points, so
// the larger radius).
func engineGlyph(e string) draw.GlyphStyle {
	s := engineStyleOf(e)
	return draw.GlyphStyle{Color: s.color, Radius: vg.Points(4), Shape: s.shape}
}

// PaletteEntry is how one policy looks in herd's figures, for notebooks
// and other tools that draw herd's data beside them.
type PaletteEntry struct {
	Policy string `json:"policy"`
	Color  string `json:"color"` // #RRGGBB
	Glyph  string `json:"glyph"`
	// Marker and Filled are the glyph as matplotlib draws it: its marker
	// code, and whether the marker is filled or only outlined.
	Marker string `json:"marker"`
	Filled bool   `json:"filled"`
}

// glyphNames are the gonum glyphs of policyStyles by the name a plotting
// library would know them by (matplotlib's markers say the same shapes).
var glyphNames = map[draw.GlyphDrawer]struct {
	name, marker string
	filled       bool
}{
	draw.CircleGlyph{}:   {"filled circle", "o", true},
	draw.TriangleGlyph{}: {"open triangle", "^", false},
	draw.BoxGlyph{}:      {"filled square", "s", true},
	draw.SquareGlyph{}:   {"open square", "s", false},
	draw.PyramidGlyph{}:  {"filled triangle", "^", true},
	draw.RingGlyph{}:     {"open circle", "o", false},
}

// Palette is every textbook policy's colour and glyph in the figures, in
// the order of policy.Kinds.
func Palette() []PaletteEntry {
	var out []PaletteEntry
	for _, k := range policy.Kinds() {
		s, ok := policyStyles[k]
		if !ok {
			continue
		}
		g := glyphNames[s.shape]
		out = append(out, PaletteEntry{string(k), fmt.Sprintf("#%02X%02X%02X", s.color.R, s.color.G, s.color.B), g.name, g.marker, g.filled})
	}
	return out
}
