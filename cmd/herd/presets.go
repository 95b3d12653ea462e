package main

import (
	"github.com/herdlab/herd/internal/render"
	"github.com/spf13/cobra"
)

// presetsOptions are what herd presets' flags said.
type presetsOptions struct {
	IO     *iostreams
	Output output
}

func newCmdPresets(f *factory, runF func(*presetsOptions) error) *cobra.Command {
	opts := &presetsOptions{IO: f.IO}
	out := outputFlags{markdown: true}
	c := &cobra.Command{
		Use:   "presets",
		Short: "List the library presets: formula, defaults, retry limit and source",
		Long: `presets lists the models of real client libraries' default backoff that
--policy accepts by name. Each gives the delay before retry n ≥ 1 in seconds,
the library's default parameters and retry limit, and the version and source
file the formula was written from. Presets whose library is a Go module are
checked against the real library by the conformance module (make conformance).`,
		Example: `  herd presets
  herd presets --format markdown
  herd simulate --policy retryablehttp-default -n 10000 -k 100 --tick 100ms`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var err error
			if opts.Output, err = out.resolve(f); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return presetsRun(opts)
		},
	}
	out.register(c)
	return c
}

func presetsRun(opts *presetsOptions) error {
	return opts.Output.writeResult(opts.IO, render.NewPresetList(opts.Output.Cite))
}
