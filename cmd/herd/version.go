package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// versionOptions hold herd version's streams; it takes no flags.
type versionOptions struct {
	IO *iostreams
}

func newCmdVersion(f *factory, runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{IO: f.IO}
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
	p := provenance()
	mod := ""
	if p.Modified {
		mod = " (modified)"
	}
	_, err := fmt.Fprintf(opts.IO.Out, "herd %s\nrevision %s%s\n%s\n", p.Version, p.Revision, mod, p.Go)
	return err
}
