package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdlab/herd/internal/render"
)

// TestDelaysPolly: herd delays --policy polly-v8-expo-jitter prints the
// exact medians of its delays and totals, with bounds and provenance; the
// medians of the total wait are the 0.90f, 1.99f, 4.03f its scaling aims at
// (f = 2 s).
func TestDelaysPolly(t *testing.T) {
	out, errs, code := herd(t, "delays", "--policy", "polly-v8-expo-jitter", "--count", "4", "--cells", "65536", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Unit    string  `json:"unit"`
		RelErr  float64 `json:"max_relative_error"`
		Retries []struct {
			N           int  `json:"n"`
			BeyondLimit bool `json:"beyond_limit"`
			Delay, Wait struct {
				Median struct{ Value, Lo, Hi float64 }
			}
		} `json:"retries"`
		GiveUp *struct {
			Proven bool `json:"proven"`
		} `json:"give_up"`
		Provenance render.Provenance `json:"provenance"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	want := []float64{0.90, 1.99, 4.03, 8.07}
	if r.Unit != "s" || len(r.Retries) != 4 || r.Provenance.Revision == "" || r.GiveUp == nil || !r.GiveUp.Proven {
		t.Fatalf("unexpected document: %s", out)
	}
	for i, row := range r.Retries {
		m := row.Wait.Median
		if got := m.Value / 2; math.Abs(got-want[i]) > 0.005 || m.Lo > m.Value || m.Hi < m.Value {
			t.Errorf("retry %d: median total wait %+v, want %.2f·2 s", row.N, m, want[i])
		}
		if row.BeyondLimit != (row.N > 3) {
			t.Errorf("retry %d: beyond_limit %v with the preset's 3 retries", row.N, row.BeyondLimit)
		}
	}
	if r.RelErr <= 0 || r.RelErr > 1e-3 {
		t.Errorf("max relative error %g", r.RelErr)
	}
}

// TestDelaysFormats: every format renders, the table states the rounding
// and the error, --figure writes a figure, and hidden scenario flags stay
// out of the help.
func TestDelaysFormats(t *testing.T) {
	fig := filepath.Join(t.TempDir(), "w.svg")
	for _, f := range []string{"table", "csv", "markdown"} {
		out, errs, code := herd(t, "delays", "--policy", "full", "--count", "3", "--cells", "4096", "--format", f, "--figure", fig)
		if code != 0 || out == "" {
			t.Fatalf("%s: exit %d: %s", f, code, errs)
		}
		if f == "table" && (!strings.Contains(out, "no tick rounding") || !strings.Contains(out, "relative")) {
			t.Errorf("table without its rounding and error statement:\n%s", out)
		}
		if f == "csv" && !strings.HasPrefix(csvBody(out), "quantity,n,unit,median,median_lo,median_hi") {
			t.Errorf("csv header: %s", strings.SplitN(csvBody(out), "\n", 2)[0])
		}
	}
	if b, err := os.ReadFile(fig); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("figure not written: %v", err)
	}
	help, _, _ := herd(t, "delays", "--help")
	if strings.Contains(help, "--clients") || !strings.Contains(help, "--max-elapsed") {
		t.Errorf("help shows the wrong scenario flags:\n%s", help)
	}
}

func TestDelaysBadInput(t *testing.T) {
	for _, c := range []struct{ args, flag string }{
		{"--count 0", "--count"},
		{"--count 1000", "--count"},
		{"--cells 10", "--cells"},
		{"--figure x.txt", "--figure"},
		{"--policy nope", "--policy"},
		{"--base -1 --policy full", "--base"},
		{"--format xml", "--format"},
	} {
		out, errs, code := herd(t, append([]string{"delays"}, strings.Fields(c.args)...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.flag) {
			t.Errorf("herd delays %s: exit %d, stdout %q, stderr %q", c.args, code, out, errs)
		}
	}
}
