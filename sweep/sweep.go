package sweep

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// A sweep runs every point of a grid and writes one JSON Lines row per
// point, in point order. A row depends only on the spec, the point and the
// binary (through its provenance), never on the workers or the shard, so
// shards merged in point order are byte for byte the unsharded output.

// Validate checks the spec's run settings as montecarlo.Options.Validate
// does for a single run: trials within [1, montecarlo.MaxTrials] and a known
// engine. The grid is checked when it is expanded (Points).
func (s SweepSpec) Validate() error {
	return montecarlo.Options{Trials: s.Trials, Seed: s.Seed, Use: s.Engine}.Validate()
}

// Check plans every point as RunSweep will run it (montecarlo.NewPlan:
// validation, engine choice, memory), so that a point an engine refuses
// refuses the sweep before any row is written or any file created. The
// error names the point and wraps the plan's *model.FieldError or
// *montecarlo.LimitError.
func (s SweepSpec) Check(points []model.Scenario) error {
	if err := s.Validate(); err != nil {
		return err
	}
	for p, sc := range points {
		if _, err := montecarlo.NewPlan(sc, montecarlo.CohortOf(sc), s.options(1)); err != nil {
			return fmt.Errorf("grid point %d%s: %w", p, s.pointWords(p), err)
		}
	}
	return nil
}

func (s SweepSpec) options(workers int) montecarlo.Options {
	return montecarlo.Options{Trials: s.Trials, Seed: s.Seed, Workers: workers, Use: s.Engine, MaxMemory: s.MaxMemory}
}

// SweepRow is one line of a sweep's output.
type SweepRow struct {
	Point  int    `json:"point"`  // index in the grid, from 0
	Points int    `json:"points"` // size of the grid
	Spec   string `json:"spec"`   // SweepSpec.Hash
	analysis.Summary
	Provenance json.RawMessage `json:"provenance,omitempty"`
}

// Shard is slice Index of Count of a grid: the points p with p mod Count =
// Index. Round-robin spreads cheap and costly corners of a grid evenly.
type Shard struct{ Index, Count int }

// Whole is the unsharded grid.
var Whole = Shard{0, 1}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether point p belongs to the shard.
func (s Shard) Owns(p int) bool { return p%s.Count == s.Index }

// ParseShard reads --shard: "i/n" with 0 ≤ i < n, or "auto", which reads a
// Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with the completion count
// in JOB_COMPLETIONS, which the manifest sets) or a Slurm job array
// (SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, offset by
// SLURM_ARRAY_TASK_MIN and divided by SLURM_ARRAY_TASK_STEP when set).
func ParseShard(text string, env func(string) string) (Shard, error) {
	if text == "" {
		return Whole, nil
	}
	if text != "auto" {
		i, n, ok := strings.Cut(text, "/")
		idx, err1 := strconv.Atoi(i)
		cnt, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || cnt < 1 || idx < 0 || idx >= cnt {
			return Shard{}, fmt.Errorf("--shard must be i/n with n ≥ 1 and 0 ≤ i < n (shards count from 0), or auto; got %q", text)
		}
		return Shard{idx, cnt}, nil
	}
	num := func(name string) (int, bool, error) {
		v := env(name)
		if v == "" {
			return 0, false, nil
		}
		x, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("--shard auto: %s=%q is not an integer", name, v)
		}
		return x, true, nil
	}
	if idx, ok, err := num("JOB_COMPLETION_INDEX"); ok || err != nil {
		if err != nil {
			return Shard{}, err
		}
		cnt, ok, err := num("JOB_COMPLETIONS")
		switch {
		case err != nil:
			return Shard{}, err
		case !ok:
			return Shard{}, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d is set but JOB_COMPLETIONS is not; set it in the Job's env to .spec.completions", idx)
		case cnt < 1 || idx < 0 || idx >= cnt:
			return Shard{}, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d is outside 0…%d (JOB_COMPLETIONS=%d)", idx, cnt-1, cnt)
		}
		return Shard{idx, cnt}, nil
	}
	if id, ok, err := num("SLURM_ARRAY_TASK_ID"); ok || err != nil {
		if err != nil {
			return Shard{}, err
		}
		cnt, ok, err := num("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, err
		}
		if !ok {
			return Shard{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%d is set but SLURM_ARRAY_TASK_COUNT is not", id)
		}
		lo, _, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return Shard{}, err
		}
		step, ok, err := num("SLURM_ARRAY_TASK_STEP")
		if err != nil {
			return Shard{}, err
		}
		if !ok || step < 1 {
			step = 1
		}
		if (id-lo)%step != 0 || cnt < 1 || (id-lo)/step < 0 || (id-lo)/step >= cnt {
			return Shard{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%d does not fit an array of %d tasks from %d in steps of %d", id, cnt, lo, step)
		}
		return Shard{(id - lo) / step, cnt}, nil
	}
	return Shard{}, errors.New("--shard auto: neither JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (Slurm job array) is set")
}

// SweepOptions say how to run a sweep.
type SweepOptions struct {
	Shard   Shard
	Workers int // 0: GOMAXPROCS
	// Done is the number of this shard's points already written (by an
	// interrupted run being resumed); they are skipped.
	Done int
	// Provenance is put in every row as is.
	Provenance json.RawMessage
	// Progress, when set, is called after each row with the rows written by
	// this run and the trials they played.
	Progress func(rows, trials int)
}

// ShardPoints lists the grid points a shard owns, in order.
func ShardPoints(total int, sh Shard) []int {
	n := ShardLen(total, sh)
	if n == 0 {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = sh.Index + i*sh.Count // ≤ total-1: no overflow
	}
	return out
}

// ShardLen is the number of grid points a shard owns, computed without
// stepping past total (a count near MaxInt would overflow).
func ShardLen(total int, sh Shard) int {
	if sh.Count < 1 || sh.Index < 0 || sh.Index >= total {
		return 0
	}
	return (total-1-sh.Index)/sh.Count + 1
}

// RunSweep simulates the shard's points from opt.Done on and calls emit
// with each finished row (one JSON line with its newline), in point order,
// from one goroutine. When ctx ends, it stops: rows already emitted are
// whole, no other row is emitted, and it returns ctx's error.
func RunSweep(ctx context.Context, spec SweepSpec, points []model.Scenario, opt SweepOptions, emit func(row []byte) error) error {
	if err := spec.Check(points); err != nil {
		return err
	}
	hash := spec.Hash(points)
	todo := ShardPoints(len(points), opt.Shard)
	if opt.Done > len(todo) {
		return fmt.Errorf("%d rows already written, but shard %s has only %d points", opt.Done, opt.Shard, len(todo))
	}
	todo = todo[opt.Done:]
	if len(todo) == 0 {
		return nil
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Points run side by side, each on its share of the workers; results
	// are the same whatever the split because each trial's stream is fixed.
	parallel := min(workers, len(todo))
	perPoint := max(1, workers/parallel)
	ctx, cancel := context.WithCancel(ctx)

	type result struct {
		row []byte
		err error
	}
	results := make([]chan result, len(todo))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	var next int
	var mu sync.Mutex
	var crash atomic.Pointer[string]
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				// A panic is a bug: carried to the emitting goroutine with
				// its stack, so that main reports it as an internal error.
				if r := recover(); r != nil {
					msg := fmt.Sprintf("%v\n\nin a sweep worker:\n%s", r, debug.Stack())
					crash.CompareAndSwap(nil, &msg)
					cancel()
				}
			}()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(todo) || ctx.Err() != nil {
					return
				}
				p := todo[i]
				s, err := analysis.Simulate(ctx, points[p], spec.options(perPoint))
				if err != nil {
					results[i] <- result{err: fmt.Errorf("point %d: %w", p, err)}
					continue
				}
				row, err := json.Marshal(SweepRow{Point: p, Points: len(points), Spec: hash, Summary: s, Provenance: opt.Provenance})
				if err != nil {
					results[i] <- result{err: fmt.Errorf("point %d: %w", p, err)}
					continue
				}
				results[i] <- result{row: sealRow(row)}
			}
		}()
	}
	defer func() {
		cancel()
		wg.Wait()
		if msg := crash.Load(); msg != nil {
			panic(*msg)
		}
	}()
	for i := range todo {
		var r result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := ctx.Err(); err != nil {
			return err // interrupted: no row after the signal
		}
		if r.err != nil {
			return r.err
		}
		if err := emit(r.row); err != nil {
			return err
		}
		if opt.Progress != nil {
			opt.Progress(i+1, (i+1)*spec.Trials)
		}
	}
	return nil
}

// A row's integrity check: every row ends with ,"check":"H"} where H is
// the first 8 bytes of the SHA-256 of the row's bytes before that field,
// in hex. Resume and merge recompute it, so a row edited, cut short or
// rewritten (CRLF line endings, say) is refused instead of trusted.
const (
	checkField = `,"check":"`
	checkLen   = 16 // hex digits
)

func rowCheck(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:checkLen/2])
}

// sealRow turns a row's JSON object into its line: the check appended as
// the object's last field, and the newline.
func sealRow(row []byte) []byte {
	body := row[:len(row)-1] // without the closing brace
	out := make([]byte, 0, len(row)+len(checkField)+checkLen+3)
	out = append(out, body...)
	out = append(out, checkField...)
	out = append(out, rowCheck(body)...)
	return append(out, '"', '}', '\n')
}

// rowHead is what resume and merge read of a row.
type rowHead struct {
	Point  *int   `json:"point"`
	Points *int   `json:"points"`
	Spec   string `json:"spec"`
}

// RowError is a row of a sweep file that cannot be trusted: File and Line
// name it (Line counts from 1).
type RowError struct {
	File string
	Line int
	Err  error
}

func (e *RowError) Error() string { return fmt.Sprintf("%s: line %d: %v", e.File, e.Line, e.Err) }
func (e *RowError) Unwrap() error { return e.Err }

// readRow verifies a row's integrity check, then reads its head. line is
// the row without its newline.
func readRow(line []byte) (rowHead, error) {
	var h rowHead
	if bytes.HasSuffix(line, []byte("\r")) {
		return h, errors.New("the row ends with a carriage return (CRLF line endings): the file was rewritten, not written by herd sweep")
	}
	tail := len(checkField) + checkLen + 2
	n := len(line) - tail
	if n < 1 || !bytes.Equal(line[n:n+len(checkField)], []byte(checkField)) || !bytes.HasSuffix(line, []byte(`"}`)) {
		return h, errors.New("the row has no integrity check (a row cut short or edited, or written by a herd older than the check): rerun that sweep or shard")
	}
	body, sum := line[:n], line[n+len(checkField):len(line)-2]
	if want := rowCheck(body); string(sum) != want {
		return h, fmt.Errorf("the row's integrity check fails (it says %s, its bytes give %s): the row was changed after it was written; rerun that sweep or shard", sum, want)
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return h, err
	}
	if h.Point == nil || h.Points == nil || h.Spec == "" {
		return h, errors.New("not a sweep row (no point, points or spec)")
	}
	if *h.Points < 1 || *h.Points > MaxSweepPoints {
		return h, fmt.Errorf("the row claims a grid of %d points, outside 1…%d", *h.Points, MaxSweepPoints)
	}
	if *h.Point < 0 || *h.Point >= *h.Points {
		return h, fmt.Errorf("point %d is outside 0…%d", *h.Point, *h.Points-1)
	}
	return h, nil
}

// ResumeFrom checks the rows an interrupted run of this shard wrote and
// returns how many there are and how many bytes they take: a last line
// without its newline (a run killed mid-write) is not counted and should
// be cut off. Rows of another sweep, or out of order, are an error.
func ResumeFrom(data []byte, hash string, total int, sh Shard) (rows, size int, err error) {
	want := ShardLen(total, sh)
	for size < len(data) {
		end := bytes.IndexByte(data[size:], '\n')
		if end < 0 {
			break // a partial last row: drop it
		}
		line := data[size : size+end]
		h, err := readRow(line)
		if err != nil {
			return 0, 0, fmt.Errorf("line %d: %w", rows+1, err)
		}
		if h.Spec != hash {
			return 0, 0, fmt.Errorf("line %d is from another sweep (spec %s, this one is %s)", rows+1, h.Spec, hash)
		}
		if rows >= want || *h.Point != sh.Index+rows*sh.Count || *h.Points != total {
			next := -1
			if rows < want {
				next = sh.Index + rows*sh.Count
			}
			return 0, 0, fmt.Errorf("line %d is point %d of %d, but shard %s's row %d is point %d of %d", rows+1, *h.Point, *h.Points, sh, rows+1, next, total)
		}
		rows++
		size += end + 1
	}
	return rows, size, nil
}

// ShardFile is one shard's output, named for messages.
type ShardFile struct {
	Name string
	Data []byte
}

// Merge joins the outputs of a sweep's shards into the rows of the
// unsharded sweep, byte for byte: each row as written, in point order. It
// refuses rows of different sweeps, a point written twice, a missing point
// and a shard cut off mid-row, naming the files and points.
func Merge(files []ShardFile) ([]byte, error) {
	if len(files) == 0 {
		return nil, errors.New("merge needs at least one shard file")
	}
	type row struct {
		file string
		line []byte
	}
	var (
		hash, hashFile string
		total          = -1
		rows           = map[int]row{}
	)
	for _, f := range files {
		data := f.Data
		for n := 1; len(data) > 0; n++ {
			end := bytes.IndexByte(data, '\n')
			if end < 0 {
				return nil, &RowError{f.Name, n, errors.New("the row is cut off (the shard was interrupted); finish it with herd sweep --resume")}
			}
			line := data[:end+1]
			data = data[end+1:]
			h, err := readRow(line[:end])
			if err != nil {
				return nil, &RowError{f.Name, n, err}
			}
			if hash == "" {
				hash, hashFile, total = h.Spec, f.Name, *h.Points
			}
			if h.Spec != hash || *h.Points != total {
				return nil, &RowError{f.Name, n, fmt.Errorf("the row is from another sweep (spec %s with %d points) than %s (spec %s with %d points): a foreign shard", h.Spec, *h.Points, hashFile, hash, total)}
			}
			if prev, dup := rows[*h.Point]; dup {
				return nil, fmt.Errorf("point %d is in both %s and %s: a duplicated shard", *h.Point, prev.file, f.Name)
			}
			rows[*h.Point] = row{f.Name, line}
		}
	}
	if total < 0 {
		return nil, errors.New("the shard files hold no rows")
	}
	if len(rows) < total {
		// Name the first few missing points only: total may be large.
		var missing []int
		for p := 0; p < total && len(missing) < 9; p++ {
			if _, ok := rows[p]; !ok {
				missing = append(missing, p)
			}
		}
		return nil, fmt.Errorf("%d of the sweep's %d points are missing (%s): a shard is missing or unfinished", total-len(rows), total, listPoints(missing, total-len(rows)))
	}
	keys := make([]int, 0, total)
	for p := range rows {
		keys = append(keys, p)
	}
	sort.Ints(keys)
	var out bytes.Buffer
	for _, p := range keys {
		out.Write(rows[p].line)
	}
	return out.Bytes(), nil
}

func listPoints(ps []int, n int) string {
	var parts []string
	for i, p := range ps {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… and %d more", n-8))
			break
		}
		parts = append(parts, strconv.Itoa(p))
	}
	return "points " + strings.Join(parts, ", ")
}
