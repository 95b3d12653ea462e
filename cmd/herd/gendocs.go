package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// genDocsOptions are what herd gen-docs' flags said.
type genDocsOptions struct {
	IO *iostreams
	// Tree is the command tree to document: herd's root.
	Tree          *cobra.Command
	Markdown, Man string // the directories, emptied first
}

// newCmdGenDocs writes the CLI reference (Markdown) and man pages from the
// command tree, without dates, so that regenerating them changes nothing
// unless a command changed. Hidden: it is for `make docs` and CI.
func newCmdGenDocs(f *factory, runF func(*genDocsOptions) error) *cobra.Command {
	opts := &genDocsOptions{IO: f.IO}
	c := &cobra.Command{
		Use:    "gen-docs",
		Short:  "Write the Markdown CLI reference and man pages",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Tree = c.Root()
			if runF != nil {
				return runF(opts)
			}
			return genDocsRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Markdown, "markdown", "docs/cli", "directory for the Markdown reference")
	c.Flags().StringVar(&opts.Man, "man", "docs/man", "directory for the man pages")
	return c
}

func genDocsRun(opts *genDocsOptions) error {
	root := opts.Tree
	root.DisableAutoGenTag = true
	for _, dir := range []string{opts.Markdown, opts.Man} {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := doc.GenMarkdownTree(root, opts.Markdown); err != nil {
		return fmt.Errorf("markdown: %w", err)
	}
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	header := &doc.GenManHeader{Title: "HERD", Section: "1", Source: "herd", Manual: "herd manual", Date: &epoch}
	if err := doc.GenManTree(root, header, opts.Man); err != nil {
		return fmt.Errorf("man: %w", err)
	}
	fmt.Fprintf(opts.IO.Out, "wrote %s and %s\n", filepath.Clean(opts.Markdown), filepath.Clean(opts.Man))
	return nil
}
