package plots

import (
	"math"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// superscripts is plain text in which ^ followed by a number (10^3,
// N^1.93, 10^-2) sets the number as a superscript: the PDF backend encodes
// only Windows-1252, which has no superscript digits beyond ³, so the
// exponent is drawn smaller and raised instead. Every figure's text goes
// through it (newPanel, textStyle and the legends use plot's default
// handler, set to it below).
type superscripts struct{ text.Plain }

func init() {
	plot.DefaultTextHandler = superscripts{text.Plain{Fonts: font.DefaultCache}}
}

// exponent is ^ and the number set as a superscript.
var exponent = regexp.MustCompile(`\^(-?[0-9]+(\.[0-9]+)?)`)

const (
	supScale = 0.7  // a superscript's size, as a share of the text's
	supRaise = 0.38 // its baseline's rise, as a share of the text's size
)

// segment is a run of text, set as a superscript or not.
type segment struct {
	text string
	sup  bool
}

// segments cuts a line into its plain runs and superscripts.
func segments(line string) []segment {
	var out []segment
	last := 0
	for _, m := range exponent.FindAllStringSubmatchIndex(line, -1) {
		if m[0] > last {
			out = append(out, segment{line[last:m[0]], false})
		}
		out = append(out, segment{line[m[2]:m[3]], true})
		last = m[1]
	}
	if last < len(line) {
		out = append(out, segment{line[last:], false})
	}
	return out
}

// width is the width of a line's segments in fnt.
func (h superscripts) width(line string, fnt font.Font) vg.Length {
	var w vg.Length
	for _, s := range segments(line) {
		f := fnt
		if s.sup {
			f.Size *= supScale
		}
		face := h.Fonts.Lookup(f, f.Size)
		w += face.Width(s.text)
	}
	return w
}

// Box is the plain text's box, as wide as the line with its superscripts
// set smaller.
func (h superscripts) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	_, height, depth = h.Plain.Box(txt, fnt)
	return h.width(txt, fnt), height, depth
}

// Draw draws like text.Plain, one segment after the other.
func (h superscripts) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if !exponent.MatchString(txt) {
		h.Plain.Draw(c, txt, sty, pt)
		return
	}
	fnt := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	supFont := sty.Font
	supFont.Size *= supScale
	sup := h.Fonts.Lookup(supFont, supFont.Size)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		defer c.Pop()
		c.Rotate(sty.Rotation)
	}
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin

	lines := h.Lines(txt)
	pt.Y += sty.Height(txt)*vg.Length(sty.YAlign) - fnt.Extents().Ascent
	for i, line := range lines {
		x := pt.X + vg.Length(sty.XAlign)*h.width(line, sty.Font)
		y := pt.Y + vg.Length(len(lines)-i)*sty.Font.Size
		for _, s := range segments(line) {
			if s.sup {
				c.FillString(sup, vg.Point{X: x, Y: y + supRaise*sty.Font.Size}, s.text)
				x += sup.Width(s.text)
				continue
			}
			c.FillString(fnt, vg.Point{X: x, Y: y}, s.text)
			x += fnt.Width(s.text)
		}
	}
}
