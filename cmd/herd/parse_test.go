package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/claims"
	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/sweep"
	"github.com/spf13/cobra"
)

// testFactory is a factory on in-memory streams, neither a terminal, and
// an environment of env only.
func testFactory(env map[string]string) *factory {
	return &factory{
		IO:     &iostreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}},
		Getenv: func(k string) string { return env[k] },
		Build:  testBuild,
	}
}

// parseAndRun executes args (the command's name first) through a root
// holding only the command newCmd builds with runF, and returns its
// standard output, standard error and exit status.
func parseAndRun[O any](t *testing.T, newCmd func(*factory, func(*O) error) *cobra.Command, runF func(*O) error, args ...string) (string, string, int) {
	t.Helper()
	return parseAndRunIn(t, testFactory(nil), newCmd, runF, args...)
}

func parseAndRunIn[O any](t *testing.T, f *factory, newCmd func(*factory, func(*O) error) *cobra.Command, runF func(*O) error, args ...string) (string, string, int) {
	t.Helper()
	f.Args = args
	root := newBareRoot(f)
	root.AddCommand(newCmd(f, runF))
	code := execute(context.Background(), root, args, f.IO.ErrOut)
	return f.IO.Out.(*bytes.Buffer).String(), f.IO.ErrOut.(*bytes.Buffer).String(), code
}

// parse returns the options args parse into, running nothing; nil (and
// the status and message) when the command line is refused.
func parse[O any](t *testing.T, newCmd func(*factory, func(*O) error) *cobra.Command, args ...string) (*O, string, int) {
	t.Helper()
	return parseIn(t, testFactory(nil), newCmd, args...)
}

func parseIn[O any](t *testing.T, f *factory, newCmd func(*factory, func(*O) error) *cobra.Command, args ...string) (*O, string, int) {
	t.Helper()
	var got *O
	_, errs, code := parseAndRunIn(t, f, newCmd, func(o *O) error { got = o; return nil }, args...)
	if code != 0 {
		got = nil
	}
	return got, errs, code
}

func fields(s string) []string { return strings.Fields(s) }

// Flags parse into the run's options: what each command will do is decided
// before it runs.
func TestSimulateParses(t *testing.T) {
	o, errs, code := parse(t, newCmdSimulate, fields("simulate -n 300 -k 7 --policy equal --cap 64 --trials 77 --seed 9 --workers 3 --engine counts --max-memory 512MiB --arrivals")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	sc := o.Scenario
	if sc.Clients != 300 || sc.Capacity != 7 || sc.Policy.Kind != policy.Equal || sc.Policy.Cap != 64 || sc.Policy.Base != 1 {
		t.Errorf("scenario %+v", sc)
	}
	want := montecarlo.Options{Trials: 77, Seed: 9, Workers: 3, Use: montecarlo.Counts, MaxMemory: 512 << 20, Arrivals: true}
	if o.Run.Trials != want.Trials || o.Run.Seed != want.Seed || o.Run.Workers != want.Workers || o.Run.Use != want.Use ||
		o.Run.MaxMemory != want.MaxMemory || o.Run.Arrivals != want.Arrivals {
		t.Errorf("run options %+v, want %+v", o.Run, want)
	}
	if o.Traffic != nil || o.Output.where() != (output{Format: "json"}) || o.Ctx == nil || o.IO == nil {
		t.Errorf("traffic %v, output %+v, ctx %v", o.Traffic, o.Output, o.Ctx)
	}

	// The open loop: --rate brings the traffic, --series the per-tick series.
	o, errs, code = parse(t, newCmdSimulate, fields("simulate -n 100 -k 20 --rate 16 --outage 50 --bucket aws --max-attempts 4 --series")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if o.Traffic == nil || o.Traffic.Rate != 16 || o.Traffic.OutageLength != 50 || !o.Run.Arrivals ||
		o.Controls.MaxAttempts != 4 || o.Controls.Bucket != control.DefaultBucket(control.AWSBucket) {
		t.Errorf("open loop: traffic %+v, controls %+v, arrivals %v", o.Traffic, o.Controls, o.Run.Arrivals)
	}
	// --max-attempts is only recorded: the run applies the cohort's rule
	// (control.Controls.InCohort).
	o, _, _ = parse(t, newCmdSimulate, fields("simulate --max-attempts 3")...)
	if o.Controls.MaxAttempts != 3 || o.Scenario.Policy.Retries != 0 {
		t.Errorf("cohort --max-attempts 3: controls %+v, retries %d", o.Controls, o.Scenario.Policy.Retries)
	}
}

// Bad command lines are refused before anything runs, with exit status 2
// and the flag named.
func TestRefusedBeforeRunning(t *testing.T) {
	for _, c := range []struct {
		run  func(t *testing.T, args []string) (bool, string, int)
		args string
		says string
	}{
		{simulateParse, "simulate --policy full,equal", "--policy"},
		{simulateParse, "simulate --trials 0", "--trials"},
		{simulateParse, "simulate --rate 5 --horizon 100", "--horizon"},
		{simulateParse, "simulate --outage 10", "needs --rate"},
		{simulateParse, "simulate --format xml", "--format"},
		{simulateParse, "simulate --policy cenkalti-v4 --cap 8", "--cap"},
		{modelParse, "model --method exact", "--method must be one of closed, markov, meanfield, chain"},
		{modelParse, "model", "--method"},
		{modelParse, "model --method markov --max-states 0", "--max-states"},
		{modelParse, "model --method meanfield --grid 100001", "--grid"},
		{sweepParse, "sweep --cap 64:8", "--cap"},
		{sweepParse, "sweep --resume", "--out"},
		{sweepParse, "sweep --resume --out -", "--out"},
		{sweepParse, "sweep --shard 4/4", "--shard"},
		{claimsParse, "claims --source blog", "--source"},
		{claimsParse, "claims --format csv", "--format"},
		{claimsParse, "claims --trials 1", "--trials"},
		{claimsParse, "claims --scaling cached", "--scaling"},
		{validateParse, "validate --perturb-delays 0", "--perturb-delays"},
		{validateParse, "validate --perturb-delays 1e308", "--perturb-delays must be a number in (0, 4]"},
		{validateParse, "validate --workers -1", "--workers"},
		{plotsParse, "plots --only nope", "--only"},
		{plotsParse, "plots --scale 2", "(0, 1]"},
		{auditParse, "audit --format xml", "--format"},
	} {
		ran, errs, code := c.run(t, fields(c.args))
		if ran || code != 2 || !strings.Contains(errs, c.says) {
			t.Errorf("herd %s: ran %v, exit %d, %q; want exit 2 naming %q", c.args, ran, code, errs, c.says)
		}
	}
}

func simulateParse(t *testing.T, a []string) (bool, string, int) {
	o, e, c := parse(t, newCmdSimulate, a...)
	return o != nil, e, c
}
func modelParse(t *testing.T, a []string) (bool, string, int) {
	o, e, c := parse(t, newCmdModel, a...)
	return o != nil, e, c
}
func sweepParse(t *testing.T, a []string) (bool, string, int) {
	o, e, c := parse(t, newCmdSweep, a...)
	return o != nil, e, c
}
func claimsParse(t *testing.T, a []string) (bool, string, int) {
	o, e, c := parse(t, newCmdClaims, a...)
	return o != nil, e, c
}
func validateParse(t *testing.T, a []string) (bool, string, int) {
	o, e, c := parse(t, newCmdValidate, a...)
	return o != nil, e, c
}
func plotsParse(t *testing.T, a []string) (bool, string, int) {
	o, e, c := parse(t, newCmdPlots, a...)
	return o != nil, e, c
}
func auditParse(t *testing.T, a []string) (bool, string, int) {
	o, e, c := parse(t, newCmdAudit, a...)
	return o != nil, e, c
}

// The format comes from --format, else --out's extension, else the
// terminal: a table for people, JSON for programs. --out - is standard
// output.
func TestOutputResolves(t *testing.T) {
	tty := testFactory(nil)
	tty.IO.OutTTY = true
	for _, c := range []struct {
		f    *factory
		args string
		want output
	}{
		{testFactory(nil), "simulate", output{Format: "json"}},
		{tty, "simulate", output{Format: "table"}},
		{tty, "simulate --out -", output{Format: "table"}},
		{testFactory(nil), "simulate --out -", output{Format: "json"}},
		{tty, "simulate --out r.csv", output{Format: "csv", Path: "r.csv"}},
		{tty, "simulate --out r.json", output{Format: "json", Path: "r.json"}},
		{tty, "simulate --out r.txt", output{Format: "table", Path: "r.txt"}},
		{tty, "simulate --out r.md", output{Format: "markdown", Path: "r.md"}},
		{tty, "simulate --out r.csv --format table", output{Format: "table", Path: "r.csv"}},
	} {
		o, errs, code := parseIn(t, c.f, newCmdSimulate, fields(c.args)...)
		if code != 0 || o.Output.where() != c.want {
			t.Errorf("herd %s (terminal %v): exit %d %s, output %+v, want %+v", c.args, c.f.IO.OutTTY, code, errs, o.Output, c.want)
		}
	}
	if o, _, _ := parseIn(t, tty, newCmdAudit, fields("audit --out r.md")...); o.Output.where() != (output{Format: "markdown", Path: "r.md"}) {
		t.Errorf("audit --out r.md: %+v", o.Output)
	}
	// Claims have no CSV: a .csv file gets JSON.
	if o, _, _ := parse(t, newCmdClaims, fields("claims --out c.csv --source aws")...); o.Output.where() != (output{Format: "json", Path: "c.csv"}) || o.Claims.Origin != "aws" {
		t.Errorf("claims --out c.csv: %+v, origin %q", o.Output, o.Claims.Origin)
	}
	if o, _, _ := parse(t, newCmdClaims, fields("claims")...); o.Claims.Origin != "" || o.Claims.Trials != claims.DefaultTrials {
		t.Errorf("claims: %+v", o.Claims)
	}
	if o, _, _ := parse(t, newCmdMerge, fields("merge a.jsonl b.jsonl --out -")...); o.Output.Path != "" || !slices.Equal(o.Files, []string{"a.jsonl", "b.jsonl"}) {
		t.Errorf("merge --out -: %+v", o)
	}
}

// --out - writes the result on standard output, not into a file named -.
func TestOutDashIsStandardOutput(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	out, errs, code := herd(t, "presets", "--format", "csv", "--out", "-")
	if code != 0 || !strings.HasPrefix(csvBody(out), "name,library,") {
		t.Fatalf("exit %d %s: %q", code, errs, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error("--out - wrote a file named -")
	}
}

// herd model's flags: the method and the models' bounds.
func TestModelParses(t *testing.T) {
	o, errs, code := parse(t, newCmdModel, fields("model --method markov -n 6 -k 2 --max-states 500")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	so := o.Solve
	so.Context = nil // the command's, which the chains poll
	if o.Method != solve.MethodMarkov || so != (solve.Options{MaxStates: 500}) || o.Scenario.Clients != 6 || o.Solve.Context == nil {
		t.Errorf("%+v", o)
	}
}

// herd sweep: the spec file and the flags that override it, the shard from
// the scheduler's environment.
func TestSweepParses(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(spec, []byte("trials: 20\nseed: 3\ngrid:\n  clients: 50\n  capacity: 5\n  policy: [full, expo]\n"), 0o644)
	f := testFactory(map[string]string{"JOB_COMPLETION_INDEX": "1", "JOB_COMPLETIONS": "4"})
	o, errs, code := parseIn(t, f, newCmdSweep, fields("sweep --spec "+spec+" --trials 7 --cap 8,16 --shard auto --out - --workers 2")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if o.Spec.Trials != 7 || o.Spec.Seed != 3 || len(o.Points) != 4 || o.Points[0].Policy.Cap != 8 || o.Points[0].Clients != 50 {
		t.Errorf("spec %+v, %d points", o.Spec, len(o.Points))
	}
	if o.Shard != (sweep.Shard{Index: 1, Count: 4}) || o.Out != "" || o.Resume || o.Workers != 2 {
		t.Errorf("shard %v, out %q, resume %v, workers %d", o.Shard, o.Out, o.Resume, o.Workers)
	}
}

// herd plots: --only picks figures in order; --list draws nothing, so the
// drawing options are not checked.
func TestPlotsParses(t *testing.T) {
	o, errs, code := parse(t, newCmdPlots, fields("plots --only tail-convergence,arrivals-timeline --scale 0.5 --seed 4 --out figs")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var names []string
	for _, f := range o.Figures {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"tail-convergence", "arrivals-timeline"}) || o.Config.Scale != 0.5 || o.Config.Seed != 4 || o.Out != "figs" {
		t.Errorf("%v %+v %q", names, o.Config, o.Out)
	}
	if o, _, code := parse(t, newCmdPlots, fields("plots --list --scale 0")...); code != 0 || !o.List {
		t.Errorf("plots --list --scale 0: exit %d", code)
	}
}

// The other commands' flags.
func TestOtherCommandsParse(t *testing.T) {
	if o, _, code := parse(t, newCmdReproduceSeed, fields("seed --trials 30 --seed 2")...); code != 0 || o.Run.Trials != 30 || o.Run.Seed != 2 {
		t.Errorf("reproduce seed: exit %d %+v", code, o)
	}
	if o, _, code := parse(t, newCmdReproduceAWS, fields("aws")...); code != 0 || o.Run.Trials != 100 {
		t.Errorf("reproduce aws: exit %d %+v", code, o)
	}
	if o, _, code := parse(t, newCmdValidate, fields("validate --seed 5 --perturb-delays 1.1")...); code != 0 || o.Seed != 5 || o.Planted.Delays != 1.1 || o.Validate.Perturb == nil || len(o.Grid) != len(analysis.DefaultValidationGrid()) {
		t.Errorf("validate: exit %d %+v", code, o)
	}
	if o, _, code := parse(t, newCmdPaperData, fields("paper-data --scale 0.1 --out gen")...); code != 0 || o.Config.Scale != 0.1 || o.Out != "gen" {
		t.Errorf("paper-data: exit %d %+v", code, o)
	}
	if _, errs, code := parse(t, newCmdPaperData, fields("paper-data --scale 0")...); code != 2 || !strings.Contains(errs, "--scale") {
		t.Errorf("paper-data --scale 0: exit %d %q", code, errs)
	}
	if o, _, code := parse(t, newCmdGenDocs, fields("gen-docs --markdown md --man man")...); code != 0 || o.Markdown != "md" || o.Man != "man" || o.Tree == nil {
		t.Errorf("gen-docs: exit %d %+v", code, o)
	}
	if o, _, code := parse(t, newCmdPresets, fields("presets --format markdown")...); code != 0 || o.Output.Format != "markdown" {
		t.Errorf("presets: exit %d %+v", code, o)
	}
	// herd delays follows a policy up to its retry limit, or 10 retries.
	for _, c := range []struct {
		args  string
		count int
	}{{"delays --policy full", 10}, {"delays --policy full --retries 4", 4}, {"delays --policy grpc-retry", grpcRetries(t)}, {"delays --policy full --retries 4 --count 7", 7}} {
		if o, errs, code := parse(t, newCmdDelays, fields(c.args)...); code != 0 || o.Count != c.count {
			t.Errorf("%s: exit %d %s, count %v, want %d", c.args, code, errs, o, c.count)
		}
	}
	if o, _, code := parse(t, newCmdDelays, fields("delays --figure w.svg --format markdown")...); code != 0 || o.FigureFormat != "svg" || o.Output.Format != "markdown" {
		t.Errorf("delays --figure w.svg: exit %d %+v", code, o)
	}
	if _, errs, code := parse(t, newCmdDelays, fields("delays --figure w.gif")...); code != 2 || !strings.Contains(errs, "--figure") {
		t.Errorf("delays --figure w.gif: exit %d %q", code, errs)
	}
	if o, _, code := parse(t, newCmdVersion, "version"); code != 0 || o.IO == nil {
		t.Errorf("version: exit %d", code)
	}
	if _, _, code := parse(t, newCmdVersion, "version", "extra"); code != 2 {
		t.Errorf("version extra: exit %d, want 2", code)
	}
}

// herd validate exits 0 when every check passes and 1 when one fails (its
// models' delays stretched by 10%), and its JSON stays valid with infinite
// z scores; on a small grid through the real command (the root package's
// tests check that the whole grid passes and that every model family's
// checks fail when perturbed).
func TestValidateExitCodes(t *testing.T) {
	small := func(o *validateOptions) error {
		o.Grid = smallValidationGrid(t)
		return validateRun(o)
	}
	out, errs, code := parseAndRun(t, newCmdValidate, small, "validate", "--format", "table")
	if code != 0 || !strings.Contains(out, "\n0 of ") {
		t.Errorf("herd validate: exit %d, stderr %q, tail %q", code, errs, out[max(0, len(out)-200):])
	}
	for _, method := range solve.Methods() {
		if !strings.Contains(out, "\n"+method+" ") {
			t.Errorf("herd validate prints no %s row", method)
		}
	}
	out, errs, code = parseAndRun(t, newCmdValidate, small, "validate", "--perturb-delays", "1.1", "--format", "json")
	if !json.Valid([]byte(out)) {
		t.Errorf("herd validate --format json writes invalid JSON (infinite z scores must be null)")
	}
	if code != 1 || !strings.Contains(errs, "checks failed") {
		t.Errorf("herd validate --perturb-delays 1.1: exit %d, stderr %q; want exit 1", code, errs)
	}
	// The mean field's completion planted 3% high fails its 2% bound.
	out, errs, code = parseAndRun(t, newCmdValidate, small, "validate", "--plant-completion", "1.03", "--format", "csv")
	if code != 1 || !strings.Contains(errs, "1 of ") || !strings.Contains(out, "completion,") {
		t.Errorf("herd validate --plant-completion 1.03: exit %d, stderr %q; want exit 1 with one check failed", code, errs)
	}
}

// The options carry the command's context: an interrupted run stops, exits
// 130 and says "interrupted" (a signal cancels the context).
func TestContextReachesTheRun(t *testing.T) {
	f := testFactory(nil)
	root := newBareRoot(f)
	root.AddCommand(newCmdSimulate(f, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code := execute(ctx, root, fields("simulate -n 100000 --trials 100000"), f.IO.ErrOut); code != 130 || f.IO.ErrOut.(*bytes.Buffer).String() != "herd: interrupted\n" {
		t.Errorf("a cancelled simulate: exit %d, %q", code, f.IO.ErrOut.(*bytes.Buffer).String())
	}
}

// grpcRetries is the retry limit of the grpc-retry preset.
func grpcRetries(t *testing.T) int {
	p, ok := policy.LookupPreset(policy.Kind("grpc-retry"))
	if !ok || p.Retries < 1 {
		t.Fatal("grpc-retry has no retry limit")
	}
	return p.Retries
}

// where is the format and the destination of an output, without its cite
// line.
func (o output) where() output { return output{Format: o.Format, Path: o.Path} }

// Every command's output carries the factory's build and the command line
// as typed.
func TestOutputCarriesTheCommand(t *testing.T) {
	o, errs, code := parse(t, newCmdSimulate, fields("simulate -n 300 --policy equal --format csv")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	c := o.Output.Cite
	if c.Revision != testBuild().Revision || c.Command != "herd simulate -n 300 --policy equal --format csv" {
		t.Errorf("cite %+v", c)
	}
}
