package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Drawing is one figure ready to render: a title, a legend strip under it,
// rows of panels, and a note under the panels. The legend has its own strip
// so that it never covers data, and one legend serves every panel.
type Drawing struct {
	Title  string
	Legend []Key
	Rows   []Row
	// Note is a line of small print under the panels: what the bands are,
	// how many trials, which seed.
	Note string
	// Cite, when set, is the cite line printed under the note (herd's
	// version and revision, the command): set when the figure is drawn,
	// never by the figure's function, so that committed figures and
	// goldens carry no revision.
	Cite          string
	Width, Height vg.Length
}

// Key is one legend entry: a label and the thumbnails drawn beside it.
type Key struct {
	Label  string
	Thumbs []plot.Thumbnailer
}

// Row is a row of panels. Widths, when set, are the panels' relative
// widths; otherwise the panels share the row equally and their data areas
// are aligned with those of neighbouring rows of as many panels. Height is
// the row's relative height (0 counts as 1).
type Row struct {
	Panels []*plot.Plot
	Widths []float64
	Height float64
	// YLabel, when set, is one y-axis label for the whole row, drawn left
	// of its first panel. Panels that share a y axis use it instead of
	// their own (gonum/plot misplaces a panel's own label on a log axis).
	YLabel string
}

// Formats are the file formats a Drawing renders to, by file extension.
var Formats = []string{"svg", "png", "pdf"}

// PNGResolution is the resolution of PNG files in dots per inch.
const PNGResolution = 110

// pdfEpoch is the creation date written into every PDF, so that a PDF too
// depends only on the figure's data (the PDF backend would otherwise stamp
// the time of the run).
var pdfEpoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

func init() {
	fpdf.SetDefaultCreationDate(pdfEpoch)
	fpdf.SetDefaultModificationDate(pdfEpoch)
	fpdf.SetDefaultCatalogSort(true)
}

// Render draws d in one of Formats and returns the file's bytes. SVG and
// PNG depend only on d.
func (d *Drawing) Render(format string) ([]byte, error) {
	var c vg.CanvasWriterTo
	switch format {
	case "svg":
		c = vgsvg.New(d.Width, d.Height)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(d.Width, d.Height),
			vgimg.UseDPI(PNGResolution), vgimg.UseBackgroundColor(color.White))}
	case "pdf":
		c = cp1252Canvas{vgpdf.New(d.Width, d.Height)}
	default:
		return nil, fmt.Errorf("unknown figure format %q (want svg, png or pdf)", format)
	}
	if err := d.draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// cp1252Canvas is the PDF canvas with its colours passed straight (see
// SetColor) and every string encoded in
// Windows-1252 first: the PDF backend embeds its fonts with that code page
// but writes a string's UTF-8 bytes as they are, so that "±", "²" or "…"
// would print as two or three wrong characters. Characters outside the
// code page cannot be drawn in a PDF at all (superscripts are drawn by
// the superscripts text handler instead).
type cp1252Canvas struct{ *vgpdf.Canvas }

// SetColor passes the colour straight (not premultiplied by its alpha):
// the PDF backend reads RGBA()'s premultiplied components as the colour
// and applies the alpha again, so that a translucent band came out dark
// and greyish in PDFs (SVG and PNG were right).
func (c cp1252Canvas) SetColor(col color.Color) {
	if col == nil {
		col = color.Black
	}
	c.Canvas.SetColor(straight(color.NRGBAModel.Convert(col).(color.NRGBA)))
}

// straight is an NRGBA colour whose RGBA gives the unpremultiplied
// components, for the PDF backend only.
type straight color.NRGBA

func (s straight) RGBA() (r, g, b, a uint32) {
	return uint32(s.R) * 0x101, uint32(s.G) * 0x101, uint32(s.B) * 0x101, uint32(s.A) * 0x101
}

// cp1252 replaces what the code page lacks with its substitute character.
var cp1252 = encoding.ReplaceUnsupported(charmap.Windows1252.NewEncoder())

func (c cp1252Canvas) FillString(f font.Face, pt vg.Point, s string) {
	if enc, err := cp1252.String(s); err == nil {
		s = enc
	}
	c.Canvas.FillString(f, pt, s)
}

func textStyle(f font.Font, align draw.XAlignment) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    f,
		XAlign:  align,
		YAlign:  draw.YTop,
		Handler: plot.DefaultTextHandler,
	}
}

// draw lays d out on c. Drawing panics inside gonum/plot (a log axis fed a
// value ≤ 0, an empty range) are turned into errors: figures are built
// from computed data, and a bad value must fail the run, not crash it.
func (d *Drawing) draw(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing %q: %v", d.Title, r)
		}
	}()
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	margin := vg.Points(8)
	area := draw.Crop(c, margin, -margin, margin, -margin)

	title := textStyle(font.From(titleFont, titleSize), draw.XCenter)
	heading := wrap(title, d.Title, area.Max.X-area.Min.X) // a long title takes two lines
	area.FillText(title, vg.Point{X: (area.Min.X + area.Max.X) / 2, Y: area.Max.Y}, heading)
	area.Max.Y -= title.Height(heading) + vg.Points(6)

	area.Max.Y = d.drawLegend(area) - vg.Points(4)

	for _, small := range []string{d.Cite, d.Note} { // from the bottom up
		if small == "" {
			continue
		}
		note := textStyle(font.From(bodyFont, noteSize), draw.XLeft)
		note.YAlign = draw.YBottom
		note.Color = grey
		lines := wrap(note, small, area.Max.X-area.Min.X)
		area.FillText(note, area.Min, lines)
		area.Min.Y += note.Height(lines) + vg.Points(4)
	}
	d.drawRows(area)
	return nil
}

// drawLegend draws the keys in centred lines across the top of area and
// returns the y under the last line.
func (d *Drawing) drawLegend(area draw.Canvas) vg.Length {
	if len(d.Legend) == 0 {
		return area.Max.Y
	}
	sty := textStyle(font.From(bodyFont, legendSize), draw.XLeft)
	thumbW, gap, space := vg.Points(22), vg.Points(4), vg.Points(16)
	h := sty.Height("Mg")
	width := func(k Key) vg.Length { return thumbW + gap + sty.Width(k.Label) }
	var lines [][]Key
	var lineW []vg.Length
	for _, k := range d.Legend {
		w := width(k)
		if n := len(lines); n > 0 && lineW[n-1]+space+w <= area.Max.X-area.Min.X {
			lines[n-1] = append(lines[n-1], k)
			lineW[n-1] += space + w
			continue
		}
		lines = append(lines, []Key{k})
		lineW = append(lineW, w)
	}
	y := area.Max.Y
	for i, line := range lines {
		x := (area.Min.X+area.Max.X)/2 - lineW[i]/2
		for _, k := range line {
			thumb := draw.Canvas{Canvas: area.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y - h}, Max: vg.Point{X: x + thumbW, Y: y}}}
			for _, t := range k.Thumbs {
				t.Thumbnail(&thumb)
			}
			area.FillText(sty, vg.Point{X: x + thumbW + gap, Y: y}, k.Label)
			x += width(k) + space
		}
		y -= h + vg.Points(3)
	}
	return y
}

// drawRows divides area among the rows by their heights and draws them.
// Consecutive equal-width rows of as many panels are aligned together so
// that their data areas line up in columns.
func (d *Drawing) drawRows(area draw.Canvas) {
	total := 0.0
	for _, r := range d.Rows {
		total += r.weight()
	}
	padY := vg.Points(10)
	avail := area.Max.Y - area.Min.Y - padY*vg.Length(len(d.Rows)-1)
	y := area.Max.Y
	for i := 0; i < len(d.Rows); {
		j := i + 1
		for j < len(d.Rows) && d.Rows[i].alignsWith(d.Rows[j]) {
			j++
		}
		h := vg.Length(0)
		for _, r := range d.Rows[i:j] {
			h += avail * vg.Length(r.weight()/total)
		}
		h += padY * vg.Length(j-i-1)
		block := draw.Canvas{Canvas: area.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: area.Min.X, Y: y - h}, Max: vg.Point{X: area.Max.X, Y: y}}}
		label := textStyle(font.From(bodyFont, labelSize), draw.XCenter)
		label.Rotation = math.Pi / 2
		label.YAlign = draw.YTop
		var labelled bool
		for _, r := range d.Rows[i:j] {
			labelled = labelled || r.YLabel != ""
		}
		if labelled {
			block.Min.X += label.Height("M") + vg.Points(4)
		}
		ylabel := func(r Row, c draw.Canvas) {
			if r.YLabel != "" {
				c.FillText(label, vg.Point{X: area.Min.X, Y: (c.Min.Y + c.Max.Y) / 2}, r.YLabel)
			}
		}
		if d.Rows[i].Widths == nil {
			grid := make([][]*plot.Plot, 0, j-i)
			for _, r := range d.Rows[i:j] {
				grid = append(grid, r.Panels)
			}
			tiles := draw.Tiles{Rows: j - i, Cols: len(d.Rows[i].Panels), PadX: vg.Points(14), PadY: padY}
			cells := plot.Align(grid, tiles, block)
			for r := range grid {
				ylabel(d.Rows[i+r], cells[r][0])
				for col, p := range grid[r] {
					if p != nil {
						p.Draw(cells[r][col])
					}
				}
			}
		} else {
			ylabel(d.Rows[i], block)
			d.Rows[i].drawWeighted(block)
		}
		y -= h + padY
		i = j
	}
}

// reflow regroups rows of equally wide panels into blocks of at most cols
// columns: the first cols panels of every row, then the next cols, so that
// panels stacked in a column stay stacked. A short last block is filled
// with empty slots, so that its columns line up with the blocks above.
func reflow(rows []Row, cols int) []Row {
	n := 0
	for _, r := range rows {
		n = max(n, len(r.Panels))
	}
	var out []Row
	for from := 0; from < n; from += cols {
		for _, r := range rows {
			b := r
			b.Panels = make([]*plot.Plot, cols)
			copy(b.Panels, r.Panels[min(from, len(r.Panels)):min(from+cols, len(r.Panels))])
			out = append(out, b)
		}
	}
	return out
}

func (r Row) weight() float64 {
	if r.Height <= 0 {
		return 1
	}
	return r.Height
}

func (r Row) alignsWith(s Row) bool {
	return r.Widths == nil && s.Widths == nil && len(r.Panels) == len(s.Panels) && r.weight() == s.weight()
}

func (r Row) drawWeighted(c draw.Canvas) {
	total := 0.0
	for _, w := range r.Widths {
		total += w
	}
	padX := vg.Points(14)
	avail := c.Max.X - c.Min.X - padX*vg.Length(len(r.Panels)-1)
	x := c.Min.X
	for i, p := range r.Panels {
		w := avail * vg.Length(r.Widths[i]/total)
		if p != nil {
			p.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: c.Min.Y}, Max: vg.Point{X: x + w, Y: c.Max.Y}}})
		}
		x += w + padX
	}
}

// wrap breaks s into lines no wider than w, between words.
func wrap(sty text.Style, s string, w vg.Length) string {
	var out, line []string
	for _, word := range strings.Fields(s) {
		if len(line) > 0 && sty.Width(strings.Join(append(line, word), " ")) > w {
			out = append(out, strings.Join(line, " "))
			line = line[:0]
		}
		line = append(line, word)
	}
	return strings.Join(append(out, strings.Join(line, " ")), "\n")
}
