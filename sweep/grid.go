package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdlab/herd/internal/infile"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"gopkg.in/yaml.v3"
)

// GridFields are the scenario fields a sweep can vary, spelled as their
// command-line flags, in the order the grid is expanded (the last varies
// fastest): every field of a cohort's scenario. The flaky server's failure
// rate is left out, since that server is played by traffic, not cohorts.
var GridFields = slices.DeleteFunc(slices.Clone(model.SpecFields), func(f string) bool { return f == "failure-rate" })

// Grid holds the values of each field, as the text of a flag: a comma list
// of values and ranges. A range lo:hi:step is arithmetic and lo:hi:*f
// geometric, both from lo up to hi inclusive; lo:hi steps by 1. Durations
// (tick, max-elapsed, window, first-spread) are Go durations, in ranges
// too (100ms:1s:100ms); round trips (latency) are durations and ranges, or
// laws such as uniform:2ms,8ms separated by semicolons. A
// field left out keeps model.Default's value; for a library preset,
// retries and max-elapsed left out keep the preset's own limits.
type Grid map[string]string

// SweepSpec is a sweep: a grid of scenarios and how to run each.
type SweepSpec struct {
	Grid   Grid
	Trials int
	Seed   uint64
	Engine montecarlo.EngineName
	// SkipInvalid drops grid points that fail Scenario.Validate (cap below
	// base, say) instead of refusing the sweep.
	SkipInvalid bool
	// MaxMemory is each point's memory budget (montecarlo.Options), 0 the
	// default; results do not depend on it, so Hash leaves it out.
	MaxMemory int64
}

// Override puts into s the run settings of cmd that given says were given
// on the command line (trials, seed, engine, skip-invalid): they win over
// a spec file's.
func (s *SweepSpec) Override(cmd SweepSpec, given func(flag string) bool) {
	if given("trials") {
		s.Trials = cmd.Trials
	}
	if given("seed") {
		s.Seed = cmd.Seed
	}
	if given("engine") {
		s.Engine = cmd.Engine
	}
	if given("skip-invalid") {
		s.SkipInvalid = cmd.SkipInvalid
	}
}

// specFile is the shape of a spec file.
type specFile struct {
	Trials      yaml.Node            `yaml:"trials"` // read by wholeNumber: no 5.5, no overflow
	Seed        yaml.Node            `yaml:"seed"`
	Engine      *string              `yaml:"engine"`
	SkipInvalid *bool                `yaml:"skip_invalid"`
	Grid        map[string]yaml.Node `yaml:"grid"`
}

// specWords says a spec file's decoding error in the file's words: the
// YAML decoder names the Go types it decodes into, which a user never
// wrote.
func specWords(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	var f specFile
	words := strings.NewReplacer(
		fmt.Sprintf(" not found in type %T", f), " is not a field of a spec file (fields: trials, seed, engine, skip_invalid, grid)",
		fmt.Sprintf("into %T", f), "into a spec file (a mapping of its fields)",
		fmt.Sprintf("into %T", f.Grid), "into grid (a mapping of grid fields)",
		fmt.Sprintf("into %T", ""), "into engine (a name)",
		fmt.Sprintf("into %T", false), "into skip_invalid (true or false)")
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		msgs[i] = words.Replace(m)
	}
	return strings.Join(msgs, "; ")
}

// ReadSweepSpec reads a spec file in YAML or JSON (JSON is YAML). Each grid
// field is a scalar, a list of scalars, or a string in flag syntax:
//
//	trials: 1000
//	seed: 1
//	grid:
//	  clients: 1000
//	  policy: [none, fixed, expo, full, equal]
//	  base: "0.5,1,2,4,8"
//	  cap: "16:2048:*2"
//
// Fields the file leaves out keep the values of base. A file larger than
// MaxSpecFile is refused.
func ReadSweepSpec(path string, base SweepSpec) (SweepSpec, error) {
	b, err := infile.Read("spec", path, MaxSpecFile)
	if err != nil {
		return base, err
	}
	fail := func(format string, a ...any) error {
		return model.Usagef("--spec %s: %w", path, fmt.Errorf(format, a...))
	}
	var f specFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return base, fail("%s", specWords(err))
	}
	s := base
	s.Grid = Grid{}
	for k, v := range base.Grid {
		s.Grid[k] = v
	}
	if f.Trials.Kind != 0 {
		t, err := wholeNumber(&f.Trials, 31)
		if err != nil {
			return base, fail("line %d: trials: %w", f.Trials.Line, err)
		}
		s.Trials = int(t)
	}
	if f.Seed.Kind != 0 {
		if s.Seed, err = wholeNumber(&f.Seed, 64); err != nil {
			return base, fail("line %d: seed: %w", f.Seed.Line, err)
		}
	}
	if f.Engine != nil {
		s.Engine = montecarlo.EngineName(*f.Engine)
	}
	if f.SkipInvalid != nil {
		s.SkipInvalid = *f.SkipInvalid
	}
	for k, node := range f.Grid {
		if !isGridField(k) {
			return base, fail("grid field %q is not one of %s", k, strings.Join(GridFields, ", "))
		}
		var text string
		switch node.Kind {
		case yaml.ScalarNode:
			text = node.Value
		case yaml.SequenceNode:
			var items []string
			for _, it := range node.Content {
				if it.Kind != yaml.ScalarNode {
					return base, fail("grid field %q: line %d: a list item must be a value", k, it.Line)
				}
				items = append(items, it.Value)
			}
			text = strings.Join(items, ",")
		default:
			return base, fail("grid field %q: line %d: want a value, a list or a string like \"1:64:*2\"", k, node.Line)
		}
		s.Grid[k] = text
	}
	return s, nil
}

// MaxSpecFile is the most bytes a spec file may hold.
const MaxSpecFile = 1 << 20

// wholeNumber reads n as a whole number 0 ≤ x < 2^bits, refusing a
// fraction or a value too large rather than truncating it.
func wholeNumber(n *yaml.Node, bits int) (uint64, error) {
	x, err := strconv.ParseUint(n.Value, 10, bits)
	if n.Kind != yaml.ScalarNode || err != nil {
		return 0, fmt.Errorf("%q must be a whole number from 0 to %d", n.Value, uint64(math.MaxUint64)>>(64-bits))
	}
	return x, nil
}

func isGridField(k string) bool { return model.IsSpecField(k) }

// GridError is a grid field whose text cannot be read; Flag names it.
type GridError struct {
	Flag string
	Err  error
}

func (e *GridError) Error() string { return fmt.Sprintf("--%s: %v", e.Flag, e.Err) }

// numbers reads a comma list of numbers and ranges.
func numbers(text string) ([]float64, error) {
	var out []float64
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("empty value in %q", text)
		}
		parts := strings.Split(item, ":")
		if len(parts) == 1 {
			x, err := strconv.ParseFloat(item, 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a number", item)
			}
			out = append(out, x)
			continue
		}
		if len(parts) > 3 {
			return nil, fmt.Errorf("range %q must be lo:hi, lo:hi:step or lo:hi:*factor", item)
		}
		lo, err1 := strconv.ParseFloat(parts[0], 64)
		hi, err2 := strconv.ParseFloat(parts[1], 64)
		if err1 != nil || err2 != nil || hi < lo {
			return nil, fmt.Errorf("range %q needs numbers lo ≤ hi", item)
		}
		step, geometric := 1.0, false
		if len(parts) == 3 {
			s := parts[2]
			if geometric = strings.HasPrefix(s, "*"); geometric {
				s = s[1:]
			}
			var err error
			if step, err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("range %q: step %q is not a number", item, parts[2])
			}
		}
		if (geometric && !(step > 1)) || (!geometric && !(step > 0)) || math.IsInf(step, 0) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return nil, fmt.Errorf("range %q: the step must be a finite number > 0 (or a factor *f with finite f > 1), between finite ends", item)
		}
		// Values are lo + i·step (or lo·fⁱ), computed from i so that errors
		// do not accumulate; hi is included when reached within rounding.
		const most = 100_000
		for i := 0; ; i++ {
			x := lo + float64(i)*step
			if geometric {
				x = lo * math.Pow(step, float64(i))
			}
			if x > hi*(1+1e-12) {
				break
			}
			if i == most {
				return nil, fmt.Errorf("range %q has more than %d values", item, most)
			}
			out = append(out, x)
		}
	}
	return out, nil
}

func integers(text string) ([]int, error) {
	xs, err := numbers(text)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(xs))
	for i, x := range xs {
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return nil, fmt.Errorf("%v is not an integer", x)
		}
		out[i] = int(x)
	}
	return out, nil
}

// durations reads a comma list of durations and ranges of durations.
func durations(text string) ([]time.Duration, error) {
	var parts []string
	for _, item := range strings.Split(text, ",") {
		fields := strings.Split(strings.TrimSpace(item), ":")
		for i, f := range fields {
			if i == 2 && strings.HasPrefix(f, "*") {
				continue // a geometric factor is a plain number
			}
			d, err := time.ParseDuration(f)
			if err != nil {
				return nil, fmt.Errorf("%q is not a duration like 100ms", f)
			}
			fields[i] = strconv.FormatInt(int64(d), 10)
		}
		parts = append(parts, strings.Join(fields, ":"))
	}
	xs, err := numbers(strings.Join(parts, ","))
	if err != nil {
		return nil, fmt.Errorf("%s (in nanoseconds)", err)
	}
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(math.Round(x))
	}
	return out, nil
}

func names(text string) []string {
	var out []string
	for _, s := range strings.Split(text, ",") {
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// axis is one field's values, as the text model.Spec reads.
type axis struct {
	flag   string
	values []string
}

// axes reads the fields the grid gives, in the order of GridFields; the
// fields it leaves out are not given, so model.Spec applies their defaults
// (the server's and the preset's) exactly as for a command's flags.
func (g Grid) axes() ([]axis, error) {
	for k := range g {
		if !isGridField(k) {
			return nil, &GridError{k, fmt.Errorf("not a sweep field (fields: %s)", strings.Join(GridFields, ", "))}
		}
	}
	var out []axis
	for _, flag := range GridFields {
		text, ok := g[flag]
		if !ok {
			continue
		}
		a := axis{flag: flag}
		var err error
		switch flag {
		case "capacity":
			if strings.Contains(text, "/") { // rates such as 100/s, converted per point with its tick
				a.values = names(text)
				break
			}
			var xs []int
			xs, err = integers(text)
			for _, x := range xs {
				a.values = append(a.values, strconv.Itoa(x))
			}
		case "clients", "first-window", "horizon", "retries", "queue-limit", "timeout":
			var xs []int
			xs, err = integers(text)
			for _, x := range xs {
				a.values = append(a.values, strconv.Itoa(x))
			}
		case "base", "cap", "fixed-delay", "exponent", "failure-rate":
			var xs []float64
			xs, err = numbers(text)
			for _, x := range xs {
				a.values = append(a.values, fmtFloat(x))
			}
		case "latency", "first-arrivals", "first-answers":
			a.values, err = roundTrips(text)
		case "stalls":
			a.values = strings.Split(text, ";")
		case "tick", "max-elapsed", "window", "first-spread", "latency-per-flight":
			var ds []time.Duration
			ds, err = durations(text)
			for _, d := range ds {
				a.values = append(a.values, d.String())
			}
		default: // server, policy, rounding, time
			a.values = names(text)
		}
		for _, v := range a.values {
			if err != nil {
				break
			}
			var probe model.Spec
			if e := probe.Set(flag, v); e != nil {
				var fe *model.FieldError
				if errors.As(e, &fe) {
					e = fmt.Errorf("must be %s, got %s", fe.Valid, fe.Got)
				}
				err = e
			}
		}
		if err != nil {
			return nil, &GridError{flag, err}
		}
		out = append(out, a)
	}
	return out, nil
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// MaxSweepPoints bounds a grid, so that a typo in a range cannot ask for
// billions of scenarios. A sweep expands, plans and hashes every point
// before its first row (some 2.5 KB each), so the bound keeps that to a few
// hundred megabytes; a larger study is several sweeps.
const MaxSweepPoints = 100_000

// MaxRow is the longest row a file of rows may hold (rows are a few KB).
const MaxRow = 1 << 20

// MaxRowsFile is the most bytes a file of rows (a sweep's --out, a shard
// to merge) may hold: MaxSweepPoints rows of a few KB each.
const MaxRowsFile = 1 << 30

// Points expands the grid into its scenarios, in a fixed order (the fields
// of GridFields, the last varying fastest). An invalid point refuses the
// sweep, naming it, unless SkipInvalid drops it.
func (s SweepSpec) Points() ([]model.Scenario, error) {
	axes, err := s.Grid.axes()
	if err != nil {
		return nil, err
	}
	total := 1
	for _, a := range axes {
		total *= len(a.values)
		if total > MaxSweepPoints {
			big := 1.0
			for _, a := range axes {
				big *= float64(len(a.values))
			}
			return nil, fmt.Errorf("the grid has %.0f points, more than the %d a sweep may have; narrow a range or split the grid into several sweeps (over --%s, say)", big, MaxSweepPoints, axes[0].flag)
		}
	}
	out := make([]model.Scenario, 0, total)
	idx := make([]int, len(axes))
	for p := range total {
		var spec model.Spec
		for i, a := range axes {
			_ = spec.Set(a.flag, a.values[idx[i]]) // read once by axes
		}
		sc, err := spec.Scenario()
		if err != nil {
			if !s.SkipInvalid {
				return nil, fmt.Errorf("grid point %d (%s): %w (pass --skip-invalid to leave such points out)", p, pointFlags(axes, idx), err)
			}
		} else {
			out = append(out, sc)
		}
		for i := len(idx) - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < len(axes[i].values) {
				break
			}
			idx[i] = 0
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the grid has no valid point")
	}
	return out, nil
}

// pointWords is " (flags)" naming the p-th point of Points in flags, or
// nothing when points were left out (then p is not the grid's index).
func (s SweepSpec) pointWords(p int) string {
	axes, err := s.Grid.axes()
	if err != nil || s.SkipInvalid {
		return ""
	}
	idx := make([]int, len(axes))
	for i := len(axes) - 1; i >= 0; i-- {
		idx[i] = p % len(axes[i].values)
		p /= len(axes[i].values)
	}
	return " (" + pointFlags(axes, idx) + ")"
}

// pointFlags names a grid point by the flags that give it, in the user's
// words (the point's scenario may be invalid, and its JSON is not theirs).
func pointFlags(axes []axis, idx []int) string {
	var b strings.Builder
	for i, a := range axes {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "--%s %s", a.flag, a.values[idx[i]])
	}
	return b.String()
}

// Hash identifies a sweep: its points, trials, seed and engine. Every row
// carries it, so shards of different sweeps cannot be merged by mistake.
// The default engine is named by the rule it follows (the fastest exact
// engine), so a shard computed under another default does not merge with
// this one.
func (s SweepSpec) Hash(points []model.Scenario) string {
	engine := s.Engine
	if engine == montecarlo.Default {
		engine = "default: fastest exact"
	}
	b, _ := json.Marshal(struct {
		Points []model.Scenario      `json:"points"`
		Trials int                   `json:"trials"`
		Seed   uint64                `json:"seed"`
		Engine montecarlo.EngineName `json:"engine"`
	}{points, s.Trials, s.Seed, engine})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
