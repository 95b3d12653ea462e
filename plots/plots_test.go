package plots

import (
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdlab/herd/analysis"
	"golang.org/x/text/encoding/charmap"
)

var update = flag.Bool("update", false, "rewrite the golden figures in testdata from the current code")

// goldenScale is the trial scale of the golden figures: small enough that
// all six draw in a few seconds, large enough that every interval exists.
const goldenScale = 0.01

func goldenConfig() Config {
	return Config{Scale: goldenScale, Seed: 1, Workers: 2}
}

// TestGolden draws every registered figure at reduced trial counts and
// compares its SVG byte for byte with testdata/NAME_golden.svg. A change in
// a figure's data (a statistic, the engine, a seed) or in its drawing shows
// up here; if intended, rerun with -update and review the new files. On a
// mismatch the new SVG is written beside the golden as NAME.got-output.svg.
//
// The figures are drawn as herd plots draws them, sharing one
// analysis.Cache; TestGoldenUncached draws those that share studies
// without it and must give the same bytes.
func TestGolden(t *testing.T) {
	cfg := goldenConfig()
	ctx := analysis.WithCache(context.Background(), analysis.NewCache())
	for _, f := range Figures() {
		t.Run(f.Name, func(t *testing.T) {
			d, err := f.Draw(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Render("svg")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", f.Name+"_golden.svg")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./plots -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				out := filepath.Join("testdata", f.Name+".got-output.svg")
				_ = os.WriteFile(out, got, 0o644)
				t.Errorf("%s differs from %s (new drawing in %s; rerun with -update if the change is intended)", f.Name, golden, out)
			}
		})
	}
}

// TestGoldenUncached draws the figures whose studies overlap with no
// cache (every scenario played each time it is asked for, one figure's
// points one at a time) and compares them with the goldens TestGolden
// draws cached: a cache that handed out another run's result shows here.
func TestGoldenUncached(t *testing.T) {
	if testing.Short() {
		t.Skip("draws four figures again")
	}
	cfg := goldenConfig()
	cfg.Workers = 1
	ctx := analysis.WithCache(context.Background(), nil)
	for _, name := range []string{"calls-vs-load", "completion-vs-load", "recovery-vs-load", "metastability-map"} {
		f, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.Draw(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Render("svg")
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", name+"_golden.svg"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s drawn uncached differs from its golden, drawn cached", name)
		}
	}
}

// TestGoldenCatchesDataChange shows that the golden comparison can fail: the
// same figure drawn from another seed's trials must not match its golden.
func TestGoldenCatchesDataChange(t *testing.T) {
	f, err := Lookup("arrivals-timeline")
	if err != nil {
		t.Fatal(err)
	}
	cfg := goldenConfig()
	cfg.Seed = 2
	d, err := f.Draw(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Render("svg")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", f.Name+"_golden.svg"))
	if err != nil {
		t.Fatalf("%v (the golden is committed; go test ./plots -update writes it)", err)
	}
	if bytes.Equal(got, want) {
		t.Fatal("a figure drawn from seed 2 matched the seed-1 golden: the golden test cannot see data changes")
	}
}

// TestReproducible draws one figure twice, with different worker counts,
// and asserts identical SVG and PNG bytes.
func TestReproducible(t *testing.T) {
	f, err := Lookup("policy-comparison")
	if err != nil {
		t.Fatal(err)
	}
	render := func(workers int) map[string][]byte {
		cfg := Config{Scale: goldenScale, Seed: 1, Workers: workers}
		d, err := f.Draw(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, format := range []string{"svg", "png"} {
			b, err := d.Render(format)
			if err != nil {
				t.Fatal(err)
			}
			out[format] = b
		}
		return out
	}
	a, b := render(1), render(3)
	for _, format := range []string{"svg", "png"} {
		if !bytes.Equal(a[format], b[format]) {
			t.Errorf("%s differs between two runs with 1 and 3 workers", format)
		}
	}
}

// TestPDF renders a figure as PDF twice: it must succeed (every string is
// in the PDF backend's code page) and, with the dates pinned, be
// byte-identical.
func TestPDF(t *testing.T) {
	f, err := Lookup("sensitivity-base-cap")
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Draw(context.Background(), Config{Scale: goldenScale, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := d.Render("pdf")
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Render("pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(a, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %q", a[:min(len(a), 16)])
	}
	if !bytes.Equal(a, b) {
		t.Error("two renderings of one drawing give different PDF bytes")
	}
}

// TestTextIsWindows1252 reads every text element of the golden SVGs and
// checks that it can be encoded in Windows-1252, the only code page the PDF
// backend writes: a "−" or "√" in a label would come out garbled in the PDF.
func TestTextIsWindows1252(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*_golden.svg"))
	if len(files) == 0 {
		t.Fatal("no golden figures in testdata (they are committed; go test ./plots -update writes them)")
	}
	enc := charmap.Windows1252.NewEncoder()
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range svgText(t, raw) {
			if _, err := enc.String(s); err != nil {
				t.Errorf("%s: text %q is not in Windows-1252: %v", file, s, err)
			}
		}
	}
	if _, err := enc.String("full − decorrelated"); err == nil {
		t.Error("the check accepts U+2212 MINUS SIGN, which the PDF backend cannot write")
	}
}

func svgText(t *testing.T, raw []byte) []string {
	var out []string
	dec := xml.NewDecoder(bytes.NewReader(raw))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			inText = v.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText && strings.TrimSpace(string(v)) != "" {
				out = append(out, string(v))
			}
		}
	}
}

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Figures() {
		if f.Name == "" || f.Caption == "" || f.Draw == nil {
			t.Errorf("incomplete registry entry %+v", f)
		}
		if seen[f.Name] {
			t.Errorf("figure %q registered twice", f.Name)
		}
		seen[f.Name] = true
		if g, err := Lookup(f.Name); err != nil || g.Name != f.Name {
			t.Errorf("Lookup(%q) = %v, %v", f.Name, g.Name, err)
		}
	}
	if _, err := Lookup("no-such-figure"); err == nil || !strings.Contains(err.Error(), "calls-vs-load") {
		t.Errorf("Lookup of an unknown name: %v, want an error listing the figures", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, s := range []float64{0, -1, 1.5} {
		if err := (Config{Scale: s}).Validate(); err == nil {
			t.Errorf("scale %g accepted", s)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Error(err)
	}
}
