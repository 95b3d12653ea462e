package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print herd's version, VCS revision and Go version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			p := provenance()
			mod := ""
			if p.Modified {
				mod = " (modified)"
			}
			_, err := fmt.Fprintf(c.OutOrStdout(), "herd %s\nrevision %s%s\n%s\n", p.Version, p.Revision, mod, p.Go)
			return err
		},
	}
}
