package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/sweep"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sweepOptions are what herd sweep's flags said.
type sweepOptions struct {
	IO      *iostreams
	Ctx     context.Context
	Spec    sweep.SweepSpec
	Points  []model.Scenario // the spec's grid, expanded
	Shard   sweep.Shard
	Workers int
	// Out is the file the rows are appended to ("" for standard output);
	// Resume continues the sweep whose rows it holds.
	Out    string
	Resume bool
	// Provenance is the build's, which every row carries.
	Provenance render.Provenance
}

// sweepFlags are herd sweep's flags as given.
type sweepFlags struct {
	grid        map[string]*string
	spec        string
	skipInvalid bool
	run         runFlags
	shard       string
	out         string
	resume      bool
}

func newCmdSweep(f *factory, runF func(*sweepOptions) error) *cobra.Command {
	opts := &sweepOptions{IO: f.IO}
	if f.Build != nil {
		// Without the command line: shards of one sweep, given other
		// command lines, must merge into the bytes of an unsharded run.
		opts.Provenance = f.Build().Provenance(nil)
	}
	o := sweepFlags{grid: map[string]*string{}}
	c := &cobra.Command{
		Use:   "sweep",
		Short: "Simulate every point of a grid of scenarios; one JSON line per point",
		Long: `sweep expands a grid of scenarios and simulates each point, writing one JSON
line per point (JSON Lines) with the scenario, the statistics of herd simulate,
the engine that ran, the sweep's spec hash and herd's provenance.

Every scenario flag takes a comma list of values and ranges: lo:hi (step 1),
lo:hi:step, or lo:hi:*factor (geometric), e.g. --cap 16:2048:*2 --policy
full,equal. --spec FILE reads the grid from YAML or JSON (see
sweep.ReadSweepSpec); flags given as well override the file's fields.

Rows come in grid order and depend only on the spec and the seed, never on
--workers or --shard. --shard i/n runs points p with p mod n = i (i from 0);
--shard auto reads a Kubernetes Indexed Job (JOB_COMPLETION_INDEX and
JOB_COMPLETIONS) or a Slurm job array (SLURM_ARRAY_TASK_ID and
SLURM_ARRAY_TASK_COUNT). herd merge joins the shards' files into the bytes of
the unsharded run.

Each row ends with "check", the first 16 hex digits of the SHA-256 of the
row's bytes before that field; --resume and herd merge recompute it and refuse
a row that fails, naming the file and line. Every point is planned (validated,
its engine chosen, its memory estimated) before --out is opened: a point an
engine refuses exits 2 with nothing written.

Each row is written whole, in one write. Interrupted (Ctrl-C, SIGTERM), sweep
finishes no half row; rerun the same command with --resume to continue from
the rows in --out.`,
		Example: `  herd sweep --policy none,fixed,expo,full,equal --base 0.5,1,2,4,8 --cap 16:2048:*2 -n 1000 -k 10 --out sweep.jsonl
  herd sweep --spec deploy/sweep.yaml --shard auto --out shard-$JOB_COMPLETION_INDEX.jsonl --resume
  herd merge shard-*.jsonl --out sweep.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Ctx = c.Context()
			var err error
			if opts.Spec, err = o.specFrom(c.Flags()); err != nil {
				return err
			}
			if opts.Points, err = opts.Spec.Points(); err != nil {
				if o.spec != "" { // the grid is the file's, flags over it
					err = fmt.Errorf("--spec %s: %w", o.spec, err)
				}
				return usageError{err}
			}
			if opts.Shard, err = sweep.ParseShard(o.shard, f.Getenv); err != nil {
				return usageError{err}
			}
			opts.Out, opts.Resume, opts.Workers = stdoutPath(o.out), o.resume, o.run.workers
			if opts.Resume && opts.Out == "" {
				return usageError{errors.New("--resume needs --out, the file whose rows it continues")}
			}
			if runF != nil {
				return runF(opts)
			}
			return sweepRun(opts)
		},
	}
	fs := c.Flags()
	for _, f := range sweep.GridFields {
		o.grid[f] = new(string)
		short := map[string]string{"clients": "n", "capacity": "k"}[f]
		fs.StringVarP(o.grid[f], f, short, "", sweep.GridUsage(f))
	}
	complete(c, "server", model.CohortServerNames())
	complete(c, "policy", append(policy.Names(policy.Kinds()), policy.PresetNames()...))
	complete(c, "rounding", policy.RoundingNames())
	fs.StringVar(&o.spec, "spec", "", "read the grid, trials, seed and engine from this YAML or JSON file")
	fs.BoolVar(&o.skipInvalid, "skip-invalid", false, "leave out grid points that are not valid scenarios (cap below base, …) instead of refusing")
	o.run.register(c, 1000)
	fs.StringVar(&o.shard, "shard", "", "run one slice of the grid: i/n (0 ≤ i < n), or auto from a Kubernetes Indexed Job or Slurm job array")
	fs.StringVar(&o.out, "out", "", "append rows to this file (required by --resume); standard output otherwise")
	fs.BoolVar(&o.resume, "resume", false, "continue the sweep whose rows --out already holds")
	return c
}

// specFrom builds the sweep from the spec file and the flags that were set.
func (o *sweepFlags) specFrom(fs *pflag.FlagSet) (sweep.SweepSpec, error) {
	opt, err := o.run.options()
	if err != nil {
		return sweep.SweepSpec{}, err
	}
	spec := sweep.SweepSpec{Grid: sweep.Grid{}, Trials: opt.Trials, Seed: opt.Seed, Engine: opt.Use, SkipInvalid: o.skipInvalid, MaxMemory: opt.MaxMemory}
	if o.spec != "" {
		if spec, err = sweep.ReadSweepSpec(o.spec, spec); err != nil {
			return spec, usageError{err}
		}
		spec.Override(sweep.SweepSpec{Trials: opt.Trials, Seed: opt.Seed, Engine: opt.Use, SkipInvalid: o.skipInvalid}, fs.Changed)
		if err := spec.Validate(); err != nil {
			return spec, usageError{fmt.Errorf("--spec: %w", err)}
		}
	}
	for _, f := range sweep.GridFields {
		if fs.Changed(f) {
			spec.Grid[f] = *o.grid[f]
		}
	}
	return spec, nil
}

func sweepRun(o *sweepOptions) error {
	spec, points, shard := o.Spec, o.Points, o.Shard
	// Every point is planned before --out is opened: a point an engine
	// refuses exits 2 with no row written and no file created.
	if err := spec.Check(points); err != nil {
		return err
	}
	hash := spec.Hash(points)
	mine := sweep.ShardLen(len(points), shard)
	out, done, err := sweep.OpenOut(o.Out, o.Resume, hash, len(points), shard)
	if err != nil {
		return err
	}
	if done > 0 {
		// In a requeued task's log, this line shows the work kept.
		fmt.Fprintf(o.IO.ErrOut, "resuming %s: %d of shard %s's %d points already done\n", o.Out, done, shard, mine)
	}
	var w io.Writer = o.IO.Out
	if out != nil {
		defer out.Close()
		w = out
	}
	prov, _ := json.Marshal(o.Provenance)
	bar := newProgress(o.IO, "points", mine-done)
	started := time.Now()
	opt := sweep.SweepOptions{Shard: shard, Workers: o.Workers, Done: done, Provenance: prov,
		Progress: func(rows, trials int) {
			if bar == nil {
				return
			}
			rate := float64(trials) / time.Since(started).Seconds()
			bar.Describe(fmt.Sprintf("points (%.0f trials/s)", rate))
			bar.Set(rows)
		}}
	written := done
	err = sweep.RunSweep(o.Ctx, spec, points, opt, func(row []byte) error {
		// One write per row: an interruption never leaves half a row.
		if _, err := w.Write(row); err != nil {
			return err
		}
		written++
		return nil
	})
	bar.Finish()
	if errors.Is(err, context.Canceled) {
		msg := fmt.Sprintf("interrupted after %d of shard %s's %d points", written, shard, mine)
		if o.Out != "" {
			msg += fmt.Sprintf("; the rows in %s are whole: rerun with --resume to continue", o.Out)
		}
		return errors.New(msg)
	}
	if err != nil {
		return err
	}
	if out != nil {
		return out.Sync()
	}
	return nil
}
