package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

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
	var out []int
	for p := sh.Index; p < total; p += sh.Count {
		out = append(out, p)
	}
	return out
}

// RunSweep simulates the shard's points from opt.Done on and calls emit
// with each finished row (one JSON line with its newline), in point order,
// from one goroutine. When ctx ends, it stops: rows already emitted are
// whole, no other row is emitted, and it returns ctx's error.
func RunSweep(ctx context.Context, spec SweepSpec, points []model.Scenario, opt SweepOptions, emit func(row []byte) error) error {
	if err := spec.Validate(); err != nil {
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
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(todo) || ctx.Err() != nil {
					return
				}
				p := todo[i]
				s, err := analysis.Simulate(ctx, points[p], montecarlo.Options{Trials: spec.Trials, Seed: spec.Seed, Workers: perPoint, Use: spec.Engine})
				if err != nil {
					results[i] <- result{err: fmt.Errorf("point %d: %w", p, err)}
					continue
				}
				row, err := json.Marshal(SweepRow{Point: p, Points: len(points), Spec: hash, Summary: s, Provenance: opt.Provenance})
				results[i] <- result{row: append(row, '\n'), err: err}
			}
		}()
	}
	defer func() { cancel(); wg.Wait() }()
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

// rowHead is what resume and merge read of a row.
type rowHead struct {
	Point  *int   `json:"point"`
	Points *int   `json:"points"`
	Spec   string `json:"spec"`
}

func readHead(line []byte) (rowHead, error) {
	var h rowHead
	if err := json.Unmarshal(line, &h); err != nil {
		return h, err
	}
	if h.Point == nil || h.Points == nil || h.Spec == "" {
		return h, errors.New("not a sweep row (no point, points or spec)")
	}
	return h, nil
}

// ResumeFrom checks the rows an interrupted run of this shard wrote and
// returns how many there are and how many bytes they take: a last line
// without its newline (a run killed mid-write) is not counted and should
// be cut off. Rows of another sweep, or out of order, are an error.
func ResumeFrom(data []byte, hash string, total int, sh Shard) (rows, size int, err error) {
	want := ShardPoints(total, sh)
	for size < len(data) {
		end := bytes.IndexByte(data[size:], '\n')
		if end < 0 {
			break // a partial last row: drop it
		}
		line := data[size : size+end]
		h, err := readHead(line)
		if err != nil {
			return 0, 0, fmt.Errorf("row %d: %v", rows+1, err)
		}
		if h.Spec != hash {
			return 0, 0, fmt.Errorf("row %d is from another sweep (spec %s, this one is %s)", rows+1, h.Spec, hash)
		}
		if rows >= len(want) || *h.Point != want[rows] || *h.Points != total {
			return 0, 0, fmt.Errorf("row %d is point %d of %d, but shard %s's row %d is point %d of %d", rows+1, *h.Point, *h.Points, sh, rows+1, at(want, rows), total)
		}
		rows++
		size += end + 1
	}
	return rows, size, nil
}

func at(xs []int, i int) int {
	if i < len(xs) {
		return xs[i]
	}
	return -1
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
				return nil, fmt.Errorf("%s: row %d is cut off (the shard was interrupted); finish it with herd sweep --resume", f.Name, n)
			}
			line := data[:end+1]
			data = data[end+1:]
			h, err := readHead(line[:end])
			if err != nil {
				return nil, fmt.Errorf("%s: row %d: %v", f.Name, n, err)
			}
			if hash == "" {
				hash, hashFile, total = h.Spec, f.Name, *h.Points
			}
			if h.Spec != hash || *h.Points != total {
				return nil, fmt.Errorf("%s: row %d is from another sweep (spec %s with %d points) than %s (spec %s with %d points): a foreign shard", f.Name, n, h.Spec, *h.Points, hashFile, hash, total)
			}
			if *h.Point < 0 || *h.Point >= total {
				return nil, fmt.Errorf("%s: row %d: point %d is outside 0…%d", f.Name, n, *h.Point, total-1)
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
		var missing []int
		for p := range total {
			if _, ok := rows[p]; !ok {
				missing = append(missing, p)
			}
		}
		return nil, fmt.Errorf("%d of the sweep's %d points are missing (%s): a shard is missing or unfinished", len(missing), total, listPoints(missing))
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

func listPoints(ps []int) string {
	var parts []string
	for i, p := range ps {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… and %d more", len(ps)-8))
			break
		}
		parts = append(parts, strconv.Itoa(p))
	}
	return "points " + strings.Join(parts, ", ")
}
