package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/herdlab/herd/paperdata"
	"github.com/spf13/cobra"
)

// paperDataOptions are what herd paper-data's flags said.
type paperDataOptions struct {
	IO     *iostreams
	Ctx    context.Context
	Config paperdata.Config
	Out    string // the directory the files are written into
}

// newCmdPaperData writes paper/generated: every number and table of the
// paper, computed now with fixed seeds. Hidden: it is for `make paper` and
// CI, which regenerates the files and fails when they differ from the
// committed ones.
func newCmdPaperData(f *factory, runF func(*paperDataOptions) error) *cobra.Command {
	opts := &paperDataOptions{IO: f.IO, Config: paperdata.Default()}
	var withCache func(context.Context) context.Context
	c := &cobra.Command{
		Use:    "paper-data",
		Short:  "Write the paper's numbers and tables (LaTeX) into --out",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Ctx = withCache(c.Context())
			if opts.Config.Workers < 0 {
				return usageError{fmt.Errorf("--workers must be ≥ 0 (0 means one per CPU), got %d", opts.Config.Workers)}
			}
			if s := opts.Config.Scale; !(s > 0 && s <= 1) {
				return usageError{fmt.Errorf("--scale must be in (0, 1], got %g", s)}
			}
			if runF != nil {
				return runF(opts)
			}
			return paperDataRun(opts)
		},
	}
	withCache = runCache(c)
	fs := c.Flags()
	fs.StringVar(&opts.Out, "out", "paper/generated", "directory to write the files into (created if missing)")
	fs.Float64Var(&opts.Config.Scale, "scale", 1, "multiply every trial count by this factor in (0, 1] (drafts only: the paper uses 1)")
	fs.Uint64Var(&opts.Config.Seed, "seed", 1, "random seed")
	fs.IntVar(&opts.Config.Workers, "workers", 0, "parallel workers (0: one per CPU); never changes results")
	return c
}

func paperDataRun(opts *paperDataOptions) error {
	cfg := opts.Config
	bar := newProgress(opts.IO, "sections", paperdata.Sections())
	cfg.Progress = func(done, _ int) { bar.Set(done) }
	files, err := paperdata.Generate(opts.Ctx, cfg)
	bar.Finish()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(opts.Out, f.Name), f.Data); err != nil {
			return err
		}
	}
	return nil
}
