package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/herdlab/herd/plots"
	"github.com/spf13/cobra"
)

type plotsOptions struct {
	out     string
	list    bool
	only    []string
	scale   float64
	seed    uint64
	workers int
}

func newPlotsCmd() *cobra.Command {
	var o plotsOptions
	c := &cobra.Command{
		Use:   "plots",
		Short: "Draw the figure set (SVG, PNG and PDF) with 95% intervals",
		Long: `plots computes and draws herd's figures, each as NAME.svg, NAME.png and
NAME.pdf in --out. Seeds are fixed, so a second run writes byte-identical SVG
and PNG files. --list names the figures with their captions; --only draws
some of them. --scale multiplies every figure's trial counts, for a quick
draft (the published figures use --scale 1).`,
		Example: `  herd plots --out paper/figures
  herd plots --list
  herd plots --only tail-convergence,arrivals-timeline --out /tmp/figs --scale 0.1`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return plotsRun(c, &o) },
	}
	fs := c.Flags()
	fs.StringVar(&o.out, "out", "paper/figures", "directory to write the figures into (created if missing)")
	fs.BoolVar(&o.list, "list", false, "list the figures and their captions, draw nothing")
	fs.StringSliceVar(&o.only, "only", nil, "draw only these figures (comma-separated names; see --list)")
	fs.Float64Var(&o.scale, "scale", 1, "multiply every figure's trial counts by this factor in (0, 1]")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed; the same seed gives byte-identical SVG and PNG")
	fs.IntVar(&o.workers, "workers", 0, "parallel workers (0: one per CPU); never changes results")
	_ = c.RegisterFlagCompletionFunc("only", cobra.FixedCompletions(plots.Names(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

func plotsRun(c *cobra.Command, o *plotsOptions) error {
	figs := plots.Figures()
	if len(o.only) > 0 {
		figs = figs[:0]
		for _, name := range o.only {
			f, err := plots.Lookup(strings.TrimSpace(name))
			if err != nil {
				return usageError{fmt.Errorf("--only: %w", err)}
			}
			figs = append(figs, f)
		}
	}
	if o.list {
		tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 0, 2, ' ', 0)
		for _, f := range figs {
			fmt.Fprintf(tw, "%s\t%s\n", f.Name, f.Caption)
		}
		return tw.Flush()
	}
	cfg := plots.Config{Scale: o.scale, Seed: o.seed, Workers: o.workers, Cache: &plots.Cache{}}
	if err := cfg.Validate(); err != nil {
		return usageError{fmt.Errorf("--%w", err)}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	stderr := c.ErrOrStderr()
	for i, f := range figs {
		start := time.Now()
		desc := fmt.Sprintf("[%d/%d] %s", i+1, len(figs), f.Name)
		var bar *progress
		cfg.Progress = func(done, total int) {
			if bar == nil {
				bar = newProgress(stderr, desc, total)
			}
			bar.set(done)
		}
		d, err := f.Draw(c.Context(), cfg)
		bar.finish()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		for _, format := range plots.Formats {
			b, err := d.Render(format)
			if err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
			if err := writeFileAtomic(filepath.Join(o.out, f.Name+"."+format), b); err != nil {
				return err
			}
		}
		fmt.Fprintf(stderr, "%s: wrote %s.{%s} (%.1f s)\n", desc, filepath.Join(o.out, f.Name),
			strings.Join(plots.Formats, ","), time.Since(start).Seconds())
	}
	return nil
}
