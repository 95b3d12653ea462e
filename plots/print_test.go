package plots

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// The paper's page (paper/herd.tex: a4paper, margin=2.4cm): the text block
// is 210 − 2·24 mm wide and 297 − 2·24 mm high.
const (
	paperTextWidth  = (210 - 48) / 25.4 * 72 // pt
	paperTextHeight = (297 - 48) / 25.4 * 72
	minPrintedText  = 7 // pt: the smallest text a reader should meet in print
)

var (
	includeGraphics = regexp.MustCompile(`\\includegraphics\[([^\]]*)\]\{([^}]+)\.pdf\}`)
	lengthOption    = regexp.MustCompile(`^(width|height)=([0-9.]*)\\(textwidth|linewidth|textheight)$`)
	svgSize         = regexp.MustCompile(`<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`)
)

// TestPaperFigureTextAtLeast7pt: every figure the paper includes is
// printed at a size where its smallest text (tick labels and the small
// print; superscripts excepted) is at least 7 pt. The printed size is read
// from herd.tex (\includegraphics' width and height, on a portrait page or
// in a sidewaysfigure, whose \linewidth is the page's height) and the drawn
// size from the committed paper/figures SVG.
func TestPaperFigureTextAtLeast7pt(t *testing.T) {
	tex, err := os.ReadFile("../paper/herd.tex")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tex), `\documentclass[11pt,a4paper]{article}`) || !strings.Contains(string(tex), `\usepackage[margin=2.4cm]{geometry}`) {
		t.Fatal("herd.tex's page is no longer a4paper with 2.4 cm margins: update paperTextWidth and paperTextHeight")
	}
	smallest := vg.Length(math.Min(float64(tickSize), float64(noteSize)))
	for _, s := range []vg.Length{titleSize, panelSize, labelSize, legendSize} {
		smallest = min(smallest, s)
	}
	seen := 0
	sideways := false
	for i, line := range strings.Split(string(tex), "\n") {
		line = strings.SplitN(line, "%", 2)[0]
		if strings.Contains(line, `\begin{sidewaysfigure}`) {
			sideways = true
		}
		if strings.Contains(line, `\end{sidewaysfigure}`) {
			sideways = false
		}
		for _, m := range includeGraphics.FindAllStringSubmatch(line, -1) {
			seen++
			name := m[2]
			b, err := os.ReadFile(filepath.Join("../paper/figures", name+".svg"))
			if err != nil {
				t.Errorf("herd.tex:%d includes %s, which paper/figures does not have: %v", i+1, name, err)
				continue
			}
			sz := svgSize.FindSubmatch(b)
			if sz == nil {
				t.Fatalf("%s.svg: no width and height in pt", name)
			}
			w, _ := strconv.ParseFloat(string(sz[1]), 64)
			h, _ := strconv.ParseFloat(string(sz[2]), 64)
			scale, err := printScale(m[1], w, h, sideways)
			if err != nil {
				t.Errorf("herd.tex:%d: %v", i+1, err)
				continue
			}
			if got := scale * float64(smallest); got < minPrintedText {
				t.Errorf("herd.tex:%d prints %s (drawn %.1f × %.1f in) at %.0f%%: its %.1f pt text is %.1f pt on paper, under %d pt",
					i+1, name, w/72, h/72, 100*scale, float64(smallest), got, minPrintedText)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("found only %d figures in herd.tex: is the pattern broken?", seen)
	}
}

// printScale is the factor by which LaTeX scales a w × h pt figure with
// \includegraphics options opts: the width and height asked for, the
// smaller of the two when keepaspectratio has both.
func printScale(opts string, w, h float64, sideways bool) (float64, error) {
	line := paperTextWidth
	if sideways {
		line = paperTextHeight
	}
	unit := map[string]float64{"textwidth": paperTextWidth, "linewidth": line, "textheight": paperTextHeight}
	scale := math.Inf(1)
	for _, o := range strings.Split(opts, ",") {
		o = strings.TrimSpace(o)
		if o == "keepaspectratio" || o == "" {
			continue
		}
		m := lengthOption.FindStringSubmatch(o)
		if m == nil {
			return 0, fmt.Errorf("cannot read \\includegraphics option %q", o)
		}
		f := 1.0
		if m[2] != "" {
			var err error
			if f, err = strconv.ParseFloat(m[2], 64); err != nil {
				return 0, err
			}
		}
		size := w
		if m[1] == "height" {
			size = h
		}
		scale = math.Min(scale, f*unit[m[3]]/size)
	}
	if math.IsInf(scale, 1) {
		return 0, fmt.Errorf("\\includegraphics[%s] gives no width or height", opts)
	}
	return scale, nil
}

// sidewaysEnvironment is a float or page that LaTeX turns on its side.
var sidewaysEnvironment = regexp.MustCompile(`\\begin\{(sidewaysfigure|sidewaystable|sideways|landscape|turn)\*?\}`)

// TestPaperFewSidewaysPages: the paper's figures and tables are read
// upright; at most two environments may turn a page on its side.
func TestPaperFewSidewaysPages(t *testing.T) {
	tex, err := os.ReadFile("../paper/herd.tex")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, line := range strings.Split(string(tex), "\n") {
		line = strings.SplitN(line, "%", 2)[0]
		for _, m := range sidewaysEnvironment.FindAllStringSubmatch(line, -1) {
			n++
			t.Logf("herd.tex:%d: %s", i+1, m[1])
		}
	}
	if n > 2 {
		t.Errorf("herd.tex sets %d environments sideways, more than 2: draw the figure at paperWidth or split it into rows", n)
	}
}
