package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/herdlab/herd/internal/outfile"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/plots"
	"github.com/spf13/cobra"
)

// plotsOptions are what herd plots' flags said.
type plotsOptions struct {
	IO      *iostreams
	Ctx     context.Context
	Figures []plots.Figure // --only's, or every figure
	List    bool           // list the figures instead of drawing them
	Palette bool           // print the policies' colours and glyphs instead
	Format  string         // of --palette: table or json
	Config  plots.Config
	Out     string // the directory the figures are written into
	// Cite, when set, is the cite line each figure's small print ends with
	// (--cite, the default); committed figures are drawn without it, so
	// that they stay byte-identical for the same tree.
	Cite string
}

func newCmdPlots(f *factory, runF func(*plotsOptions) error) *cobra.Command {
	opts := &plotsOptions{IO: f.IO}
	var only []string
	var withCache func(context.Context) context.Context
	var cite bool
	c := &cobra.Command{
		Use:   "plots",
		Short: "Draw the figure set (SVG, PNG and PDF) with 95% intervals",
		Long: `plots computes and draws herd's figures, each as NAME.svg, NAME.png and
NAME.pdf in --out. Seeds are fixed, so a second run writes byte-identical SVG
and PNG files. --list names the figures with their captions; --only draws
some of them. --scale multiplies every figure's trial counts, for a quick
draft (the published figures use --scale 1).

Each figure's small print ends with the cite line: herd's version, the VCS
revision (marked when the tree was modified), this command and its seed.
--cite=false leaves it out, for figures that are committed (make plots
draws paper/figures so, and make paper draws the paper's own with it).

--palette prints each policy's colour and glyph in the figures (--format
json for notebooks and other tools that draw beside them).`,
		Example: `  herd plots --out paper/figures
  herd plots --list
  herd plots --only tail-convergence,arrivals-timeline --out /tmp/figs --scale 0.1
  herd plots --cite=false --out paper/figures
  herd plots --palette --format json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Ctx = withCache(c.Context())
			opts.Figures = plots.Figures()
			if len(only) > 0 {
				opts.Figures = opts.Figures[:0]
				for _, name := range only {
					fig, err := plots.Lookup(strings.TrimSpace(name))
					if err != nil {
						return usageError{fmt.Errorf("--only: %w", err)}
					}
					opts.Figures = append(opts.Figures, fig)
				}
			}
			if cite {
				opts.Cite = "Cite: " + f.provenance().WithRun(opts.Config.Seed, 0, "").Cite
			}
			if opts.Format != "table" && opts.Format != "json" {
				return usageError{fmt.Errorf("--format must be table or json, got %q", opts.Format)}
			}
			if c.Flags().Changed("format") && !opts.Palette {
				return usageError{fmt.Errorf("--format applies to --palette only (figures are written as %s)", strings.Join(plots.Formats, ", "))}
			}
			if !opts.List && !opts.Palette {
				if err := opts.Config.Validate(); err != nil {
					return usageError{fmt.Errorf("--%w", err)}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return plotsRun(opts)
		},
	}
	withCache = runCache(c)
	fs := c.Flags()
	fs.StringVar(&opts.Out, "out", "paper/figures", "directory to write the figures into (created if missing)")
	fs.BoolVar(&opts.List, "list", false, "list the figures and their captions, draw nothing")
	fs.BoolVar(&opts.Palette, "palette", false, "print each policy's colour and glyph in the figures, draw nothing")
	fs.StringVar(&opts.Format, "format", "table", "output of --palette: table|json")
	fs.StringSliceVar(&only, "only", nil, "draw only these figures (comma-separated names; see --list)")
	fs.Float64Var(&opts.Config.Scale, "scale", 1, "multiply every figure's trial counts by this factor in (0, 1]")
	fs.Uint64Var(&opts.Config.Seed, "seed", 1, "random seed; the same seed gives byte-identical SVG and PNG")
	fs.IntVar(&opts.Config.Workers, "workers", 0, "parallel workers (0: one per CPU); never changes results")
	fs.BoolVar(&cite, "cite", true, "end each figure's small print with the cite line (version, revision, command); false for committed figures")
	_ = c.RegisterFlagCompletionFunc("only", cobra.FixedCompletions(plots.Names(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

func plotsRun(opts *plotsOptions) error {
	figs := opts.Figures
	if opts.Palette {
		return printPalette(opts)
	}
	if opts.List {
		tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
		for _, f := range figs {
			fmt.Fprintf(tw, "%s\t%s\n", f.Name, f.Caption)
		}
		return tw.Flush()
	}
	// Checked before the directory is made: a refusal leaves nothing.
	if w := opts.Config.Workers; w < 0 || w > montecarlo.MaxWorkers {
		return &model.FieldError{Flag: "workers", Valid: fmt.Sprintf("0 (one per CPU) or an integer in [1, %d]", montecarlo.MaxWorkers), Got: fmt.Sprint(w)}
	}
	if err := outfile.MakeDir(opts.Out); err != nil {
		return err
	}
	finished := 0
	bar := newProgress(opts.IO, "figures", len(figs)*progressUnits)
	err := plots.WriteAll(opts.Ctx, figs, opts.Config, opts.Out, opts.Cite, func(share float64) { bar.Set(int(share * progressUnits)) },
		func(name string, took time.Duration) {
			finished++
			bar.Clear()
			fmt.Fprintf(opts.IO.ErrOut, "[%d/%d] %s: wrote %s.{%s} (%.1f s)\n", finished, len(figs), name, filepath.Join(opts.Out, name),
				strings.Join(plots.Formats, ","), took.Seconds())
		})
	bar.Finish()
	return err
}

// progressUnits are the bar's units per figure: a figure reports its own
// units of work, which the bar counts as a share of one figure.
const progressUnits = 100

// printPalette writes the policies' colours and glyphs: a table, or JSON
// {"policies": [{"policy", "color", "glyph", "marker", "filled"}]}.
func printPalette(opts *plotsOptions) error {
	pal := plots.Palette()
	if opts.Format == "json" {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Policies []plots.PaletteEntry `json:"policies"`
		}{pal})
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "policy\tcolour\tglyph")
	for _, e := range pal {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Policy, e.Color, e.Glyph)
	}
	return tw.Flush()
}
