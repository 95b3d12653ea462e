package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/herdlab/herd/internal/render"
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
	_, err := fmt.Fprint(opts.IO.Out, versionText(opts.Provenance))
	return err
}

// versionText is what herd version and herd --version print.
func versionText(p render.Provenance) string {
	mod := ""
	if p.Modified {
		mod = " (modified)"
	}
	return fmt.Sprintf("herd %s\nrevision %s%s\n%s\n", p.Version, p.Revision, mod, p.Go)
}
