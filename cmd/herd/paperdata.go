package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/herdlab/herd/paperdata"
	"github.com/spf13/cobra"
)

// newPaperDataCmd writes paper/generated: every number and table of the
// paper, computed now with fixed seeds. Hidden: it is for `make paper` and
// CI, which regenerates the files and fails when they differ from the
// committed ones.
func newPaperDataCmd() *cobra.Command {
	cfg := paperdata.Default()
	var out string
	c := &cobra.Command{
		Use:    "paper-data",
		Short:  "Write the paper's numbers and tables (LaTeX) into --out",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if cfg.Workers < 0 {
				return usageError{fmt.Errorf("--workers must be ≥ 0 (0 means one per CPU), got %d", cfg.Workers)}
			}
			if !(cfg.Scale > 0 && cfg.Scale <= 1) {
				return usageError{fmt.Errorf("--scale must be in (0, 1], got %g", cfg.Scale)}
			}
			bar := newProgress(c.ErrOrStderr(), "sections", paperdata.Sections())
			cfg.Progress = func(done, _ int) { bar.set(done) }
			files, err := paperdata.Generate(c.Context(), cfg)
			bar.finish()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			for _, f := range files {
				if err := writeFileAtomic(filepath.Join(out, f.Name), f.Data); err != nil {
					return err
				}
			}
			return nil
		},
	}
	fs := c.Flags()
	fs.StringVar(&out, "out", "paper/generated", "directory to write the files into (created if missing)")
	fs.Float64Var(&cfg.Scale, "scale", 1, "multiply every trial count by this factor in (0, 1] (drafts only: the paper uses 1)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	fs.IntVar(&cfg.Workers, "workers", 0, "parallel workers (0: one per CPU); never changes results")
	return c
}
