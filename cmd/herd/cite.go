package main

import (
	"fmt"

	toolkit "github.com/herdlab/herd" // the root package: CITATION.cff
	"github.com/herdlab/herd/internal/render"
	"github.com/spf13/cobra"
)

// citeOptions hold herd cite's streams and the build it cites.
type citeOptions struct {
	IO         *iostreams
	Provenance render.Provenance
}

func newCmdCite(f *factory, runF func(*citeOptions) error) *cobra.Command {
	opts := &citeOptions{IO: f.IO}
	return &cobra.Command{
		Use:   "cite",
		Short: "Print a BibTeX entry for herd at this revision",
		Long: `cite prints a BibTeX (biblatex @software) entry for herd: the title, authors,
version and release date of CITATION.cff, and the VCS revision this herd was
built from (marked when the tree was modified). Cite the revision and the
seed that herd printed with the numbers you quote; every output's cite line
has both.`,
		Example: `  herd cite >> references.bib`,
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			opts.Provenance = f.provenance()
			if runF != nil {
				return runF(opts)
			}
			return citeRun(opts)
		},
	}
}

func citeRun(opts *citeOptions) error {
	c, err := toolkit.Cite()
	if err != nil {
		return err
	}
	rev := opts.Provenance.Revision
	if opts.Provenance.Modified {
		rev += " (modified)"
	}
	_, err = fmt.Fprint(opts.IO.Out, c.BibTeX(rev))
	return err
}
