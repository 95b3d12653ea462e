package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdlab/herd/internal/buildinfo"
)

// testBuild is the herd every test runs as: a fixed version and revision,
// so that goldens hold no real revision.
func testBuild() buildinfo.Build {
	return buildinfo.Build{Version: "0.0.0-test", Revision: "0123456789abcdef0123456789abcdef01234567", Go: "go1.test"}
}

func herd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	f := &factory{IO: &iostreams{In: strings.NewReader(""), Out: &o, ErrOut: &e}, Getenv: os.Getenv, Build: testBuild}
	code = runWith(f, args)
	return o.String(), e.String(), code
}

// Bad input exits 2, names the flag and the valid range, and prints no
// result.
func TestBadInputExitsTwo(t *testing.T) {
	for _, c := range []struct{ args, flag, valid string }{
		{"--capacity 0", "--capacity", "[1,"},
		{"--capacity 9223372036854775807", "--capacity", "[1,"},
		{"--clients -5", "--clients", "[1,"},
		{"--base 0", "--base", "(0,"},
		{"--cap 0.5 --base 1", "--cap", "[base,"},
		{"--base NaN", "--base", "(0,"},
		{"--policy nope", "--policy", "full"},
		{"--policy fulll", "--policy", "(did you mean full?)"},
		{"--policy retryablehttp-defualt", "--policy", "(did you mean retryablehttp-default?)"},
		{"--policy retry-go", "--policy", "(did you mean retry-go-v4?)"},
		{"--policy full:rounding=floor", "--policy", "NAME:FIELD=VALUE"},
		{"--base 100ms", "--base", "a real --tick"},
		{"--trials 0", "--trials", "[1,"},
		{"--rounding sideways", "--rounding", "half-even"},
		{"--format xml", "--format", "json"},
		{"--workers -1", "--workers", "[1, 4096]"},
		{"--workers 100000000", "--workers", "[1, 4096]"},
		{"--max-memory 12parsecs", "--max-memory", "512MiB"},
		{"--first-window 0", "--first-window", "[1,"},
		{"--clients x", "--clients", "must be an integer"},
	} {
		out, errs, code := herd(t, append([]string{"simulate"}, strings.Fields(c.args)...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.flag) || !strings.Contains(errs, c.valid) {
			t.Errorf("herd simulate %s: exit %d, stdout %q, stderr %q", c.args, code, out, errs)
		}
	}
	if _, _, code := herd(t, "nosuchcommand"); code != 2 {
		t.Errorf("unknown command exits %d", code)
	}
}

// The JSON of herd simulate has DESIGN.md's shape and is byte-identical
// for 1 and 2 workers and across runs.
func TestSimulateJSON(t *testing.T) {
	args := []string{"simulate", "-n", "100", "-k", "10", "--policy", "full", "--trials", "500", "--seed", "3", "--format", "json"}
	a, _, code := herd(t, append(args, "--workers", "1")...)
	b, _, _ := herd(t, append(args, "--workers", "2")...)
	c, _, _ := herd(t, append(args, "--workers", "2")...)
	if code != 0 || result(t, a) != result(t, b) || b != c {
		t.Fatalf("exit %d; outputs differ between workers or runs:\n%s\n%s", code, a, b)
	}
	var doc struct {
		Scenario map[string]any `json:"scenario"`
		Trials   int            `json:"trials"`
		Seed     uint64         `json:"seed"`
		Censored *int           `json:"censored"`
		Calls    struct {
			Mean, SD float64
			CI95     [2]float64 `json:"ci95"`
		} `json:"calls"`
		Completion struct {
			Mean      float64
			CI95      [2]float64 `json:"ci95"`
			Quantiles map[string]struct {
				Value float64    `json:"value"`
				CI95  [2]float64 `json:"ci95"`
			} `json:"quantiles"`
		} `json:"completion"`
		Provenance map[string]any `json:"provenance"`
	}
	if err := json.Unmarshal([]byte(a), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"clients", "capacity", "server", "policy", "base", "cap", "fixed_delay", "rounding"} {
		if _, ok := doc.Scenario[k]; !ok {
			t.Errorf("scenario lacks %q", k)
		}
	}
	if doc.Trials != 500 || doc.Seed != 3 || doc.Censored == nil || doc.Provenance["revision"] == nil {
		t.Errorf("header fields: %+v", doc)
	}
	if !(doc.Calls.CI95[0] < doc.Calls.Mean && doc.Calls.Mean < doc.Calls.CI95[1]) {
		t.Errorf("calls CI %v does not surround the mean %g", doc.Calls.CI95, doc.Calls.Mean)
	}
	for _, p := range []string{"p50", "p90", "p99"} {
		q, ok := doc.Completion.Quantiles[p]
		if !ok || q.CI95[0] > q.Value || q.Value > q.CI95[1] {
			t.Errorf("completion %s: %+v", p, q)
		}
	}
}

// A scenario that cannot finish reports every trial censored, with a
// warning, and no completion.
func TestCensoredScenario(t *testing.T) {
	out, errs, code := herd(t, "simulate", "--server", "collision", "--policy", "fixed", "-n", "20", "-k", "1", "--trials", "20", "--format", "json")
	if code != 0 || !strings.Contains(errs, "censored") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["censored"] != float64(20) || doc["completion"] != nil || doc["calls"] != nil {
		t.Fatalf("censored %v, completion %v, calls %v", doc["censored"], doc["completion"], doc["calls"])
	}
}

// --out writes the file whole, and a failing run leaves nothing behind.
func TestOutAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.csv")
	if _, errs, code := herd(t, "simulate", "--trials", "50", "--out", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(csvBody(string(b)), "scenario,policy,seed,trials,metric,mean,sd,n,") {
		t.Fatalf("csv by extension: %q %v", b, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if _, _, code := herd(t, "simulate", "--trials", "0", "--out", bad); code != 2 {
		t.Fatalf("exit %d", code)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries after a failed run", len(entries))
	}
}

// herd reproduce seed with the article's own budget still matches the
// exact no-jitter rows.
func TestReproduceSeedJSON(t *testing.T) {
	out, errs, code := herd(t, "reproduce", "seed", "--trials", "30", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Rows []struct {
			Clients    int    `json:"clients"`
			Policy     string `json:"policy"`
			Calls      struct{ Mean float64 }
			Completion struct{ Mean float64 }
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Rows) != 15 {
		t.Fatalf("%v, %d rows", err, len(doc.Rows))
	}
	want := map[string][2]float64{"50 expo": {150, 31}, "100 expo": {550, 191}, "200 fixed": {2100, 39}}
	for _, r := range doc.Rows {
		if w, ok := want[strings.Join([]string{itoa(r.Clients), r.Policy}, " ")]; ok && (r.Calls.Mean != w[0] || r.Completion.Mean != w[1]) {
			t.Errorf("%d %s: %g, %g; want %v", r.Clients, r.Policy, r.Calls.Mean, r.Completion.Mean, w)
		}
	}
}

// result is a JSON document without its provenance, which holds the
// command line: what must be the same for two command lines that ask for
// the same computation (other worker counts, say).
func result(t *testing.T, doc string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("%v: %q", err, doc)
	}
	if _, ok := m["provenance"].(map[string]any)["cite"]; !ok {
		t.Errorf("document without a cite line in its provenance: %q", doc)
	}
	delete(m, "provenance")
	b, _ := json.Marshal(m)
	return string(b)
}

// csvBody is a CSV without the comment lines (# …) that head it.
func csvBody(s string) string {
	for strings.HasPrefix(s, "#") {
		_, s, _ = strings.Cut(s, "\n")
	}
	return s
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
