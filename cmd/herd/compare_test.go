package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/policy"
)

// --policy lists the policies; --policies gives each its parameters, a
// delay as ticks or as a duration at the tick; every policy shares the
// service and one tick.
func TestCompareParses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	o, errs, code := parse(t, newCmdCompare, fields("compare -n 1000 -k 100/s --tick 10ms --policy full,cenkalti-v4 --trials 50 --out "+dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Join(o.Labels, ",") != "full,cenkalti-v4" || len(o.Scenarios) != 2 || o.Run.Trials != 50 || o.Dir != dir {
		t.Fatalf("options %+v", o)
	}
	for _, sc := range o.Scenarios {
		if sc.Clients != 1000 || sc.Capacity != 1 || sc.Policy.TickLength() != 10*time.Millisecond {
			t.Errorf("scenario %+v", sc)
		}
	}
	if o.Cite.Command != "herd compare -n 1000 -k 100/s --tick 10ms --policy full,cenkalti-v4 --trials 50 --out DIR" {
		t.Errorf("cited command %q", o.Cite.Command)
	}
	yml := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(yml, []byte("policies:\n  - policy: full\n    cap: 640ms\n  - policy: full\n    cap: 8\n  - policy: equal\n    base: 20ms\n    label: slow equal\n  - policy: grpc-retry\n"), 0o644)
	o, errs, code = parse(t, newCmdCompare, fields("compare -n 100 -k 100/s --tick 10ms --policies "+yml+" --out "+dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Join(o.Labels, "|") != "full (cap 640ms)|full (cap 8)|slow equal|grpc-retry" {
		t.Errorf("labels %q", o.Labels)
	}
	if p := o.Scenarios[0].Policy; p.Cap != 64 || p.Base != 1 {
		t.Errorf("cap 640ms at a 10ms tick: %+v", p)
	}
	if p := o.Scenarios[2].Policy; p.Kind != policy.Equal || p.Base != 2 {
		t.Errorf("base 20ms at a 10ms tick: %+v", p)
	}
	// Without --tick every policy is on the presets' 1 s tick.
	o, _, _ = parse(t, newCmdCompare, fields("compare --policy full,grpc-retry --out "+dir)...)
	if o == nil || o.Scenarios[0].Policy.TickLength() != time.Second || o.Scenarios[1].Policy.TickLength() != time.Second {
		t.Errorf("default tick: %+v", o)
	}

	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "keep"), nil, 0o644)
	for _, c := range []struct{ args, want string }{
		{"compare --policy full --out " + dir, "two or more"},
		{"compare --policy full,fulll --out " + dir, "did you mean full"},
		{"compare --policy full,full --out " + dir, "listed twice"},
		{"compare --policy full,equal", "--out"},
		{"compare --policy full,equal --out " + full, "--force"},
		{"compare --policy full,equal --policies " + yml + " --out " + dir, "not both"},
		{"compare --server occ --policy full,equal --out " + dir, "occ"},
		{"compare -k 100/s --tick 3ms --policy full,equal --out " + dir, "--capacity"},
	} {
		if _, errs, code := parse(t, newCmdCompare, fields(c.args)...); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("herd %s: exit %d, %q; want exit 2 saying %q", c.args, code, errs, c.want)
		}
	}
	if _, errs, code := parse(t, newCmdCompare, fields("compare --policy full,equal --force --out "+full)...); code != 0 {
		t.Errorf("--force on a directory with files: exit %d %s", code, errs)
	}
}

// herd compare writes its directory — report, SVG, PNG, JSON — the same
// bytes every time, with intervals on every paired difference and a
// verdict that says "not significant" exactly where the interval holds 0.
func TestCompareWritesDirectory(t *testing.T) {
	parent := t.TempDir()
	args := "compare -n 30 -k 5 --policy full,equal,decorrelated --trials 40 --seed 2 --out "
	var first map[string][]byte
	for i, name := range []string{"a", "b"} {
		dir := filepath.Join(parent, name)
		out, errs, code := herd(t, strings.Fields(args+dir)...)
		if code != 0 || !strings.Contains(out, "wrote "+dir) {
			t.Fatalf("exit %d: %s%s", code, out, errs)
		}
		files := map[string][]byte{}
		for _, f := range []string{render.CompareFiles.Report, render.CompareFiles.SVG, render.CompareFiles.PNG, render.CompareFiles.Data} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil || len(b) == 0 {
				t.Fatalf("%s: %v", f, err)
			}
			files[f] = b
		}
		if i == 0 {
			first = files
			continue
		}
		for f, b := range files {
			if !bytes.Equal(b, first[f]) {
				t.Errorf("%s differs between two runs of the same command", f)
			}
		}
	}
	report := string(first[render.CompareFiles.Report])
	checkGolden(t, "compare.report", first[render.CompareFiles.Report])
	checkGolden(t, "compare.figure.svg", first[render.CompareFiles.SVG])
	var doc struct {
		Pairs []struct {
			A, B       string
			Calls      pairDiff `json:"calls"`
			Completion pairDiff `json:"completion"`
			Latency    pairDiff `json:"latency_mean"`
			GaveUp     pairDiff `json:"gave_up"`
			Verdict    string   `json:"verdict"`
		} `json:"pairs"`
		Provenance render.Provenance `json:"provenance"`
	}
	if err := json.Unmarshal(first[render.CompareFiles.Data], &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Pairs) != 3 || !strings.Contains(doc.Provenance.Cite, testBuild().Revision) {
		t.Fatalf("%d pairs, cite %q", len(doc.Pairs), doc.Provenance.Cite)
	}
	notSignificant := 0
	for _, p := range doc.Pairs {
		parts := strings.Split(p.Verdict, "; ")
		for i, d := range []pairDiff{p.Calls, p.Completion, p.Latency, p.GaveUp} {
			if d.CI95 == nil {
				t.Errorf("%s − %s: a difference without an interval", p.A, p.B)
				continue
			}
			same := d.CI95[0] == 0 && d.CI95[1] == 0
			says := strings.Contains(parts[i], "not significant")
			if says != (!d.Significant && !same) {
				t.Errorf("%s vs %s, %q: says not significant %v, interval %v", p.A, p.B, parts[i], says, d.CI95)
			}
			if says {
				notSignificant++
			}
		}
		if !strings.Contains(report, p.Verdict) {
			t.Errorf("the report lacks the verdict %q", p.Verdict)
		}
	}
	if notSignificant == 0 {
		t.Error("no difference is not significant here: the test does not see that wording")
	}
}

type pairDiff struct {
	Mean        float64     `json:"mean"`
	CI95        *[2]float64 `json:"ci95"`
	Significant bool        `json:"significant"`
}

// A limiter given per window is compared in continuous time, and the
// report says who gave up instead of calling them served.
func TestCompareALimiterInContinuousTime(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	_, errs, code := herd(t, fields("compare -n 200 -k 5/100ms --policy retry-go-v4,full --trials 50 --out "+dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(b)
	for _, want := range []string{"each 100ms window", "continuous time", "retry-go-v4 has more clients give up", "calls per served client", "its last served client"} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md does not say %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "serves every client") {
		t.Errorf("report.md says a policy whose clients gave up serves every client:\n%s", report)
	}
	var doc struct {
		Policies []struct {
			Label  string `json:"label"`
			GaveUp *struct {
				Mean float64 `json:"mean"`
			} `json:"gave_up"`
		} `json:"policies"`
	}
	b, _ = os.ReadFile(filepath.Join(dir, "compare.json"))
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Policies) != 2 || doc.Policies[0].GaveUp == nil || doc.Policies[0].GaveUp.Mean <= 0 {
		t.Errorf("compare.json: %v, %+v; want retry-go-v4's clients giving up", err, doc.Policies)
	}
}

// A label the user gave, here a configuration's path holding a |, a
// newline and a backtick, neither splits a markdown table row nor starts
// a line of the report.
func TestCompareReportEscapesLabels(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	a := filepath.Join(src, "a|b\nc`d.json")
	grpc, err := os.ReadFile(filepath.Join("testdata", "config", "grpc.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a, grpc, 0o644); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join("testdata", "config", "envoy.yaml")
	if _, errs, code := herd(t, "compare", "-n", "200", "-k", "20/100ms", "--config", a+","+b, "--trials", "20", "--out", dir, "--force"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	report := string(read(t, filepath.Join(dir, "report.md")))
	cells := -1
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(line, "c`d.json") {
			t.Errorf("the label's newline started a line: %q", line)
		}
		if !strings.HasPrefix(line, "|") {
			cells = -1
			continue
		}
		n := strings.Count(line, "|") - strings.Count(line, `\|`)
		if cells >= 0 && n != cells {
			t.Errorf("a row of %d cell bounds in a table of %d: %q", n, cells, line)
		}
		cells = n
	}
	if !strings.Contains(report, `a\|b\nc`+"`"+`d.json`) {
		t.Errorf("the label is not in the report, escaped:\n%s", report)
	}
}
