package main

import (
	"fmt"

	"github.com/herdlab/herd/internal/render"
	"github.com/spf13/cobra"
)

// versionOptions hold herd version's streams; it takes no flags.
type versionOptions struct {
	IO         *iostreams
	Provenance render.Provenance
}

func newCmdVersion(f *factory, runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{IO: f.IO, Provenance: f.provenance()}
	return &cobra.Command{
		Use:   "version",
		Short: "Print herd's version, VCS revision and Go version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(opts)
		},
	}
}

func versionRun(opts *versionOptions) error {
	_, err := fmt.Fprint(opts.IO.Out, render.VersionText(opts.Provenance))
	return err
}
