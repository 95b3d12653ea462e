package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newGenDocsCmd writes the CLI reference (Markdown) and man pages from the
// command tree, without dates, so that regenerating them changes nothing
// unless a command changed. Hidden: it is for `make docs` and CI.
func newGenDocsCmd() *cobra.Command {
	var markdown, man string
	c := &cobra.Command{
		Use:    "gen-docs",
		Short:  "Write the Markdown CLI reference and man pages",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			root := c.Root()
			root.DisableAutoGenTag = true
			for _, dir := range []string{markdown, man} {
				if err := os.RemoveAll(dir); err != nil {
					return err
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
			}
			if err := doc.GenMarkdownTree(root, markdown); err != nil {
				return fmt.Errorf("markdown: %w", err)
			}
			epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			header := &doc.GenManHeader{Title: "HERD", Section: "1", Source: "herd", Manual: "herd manual", Date: &epoch}
			if err := doc.GenManTree(root, header, man); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			fmt.Fprintf(c.OutOrStdout(), "wrote %s and %s\n", filepath.Clean(markdown), filepath.Clean(man))
			return nil
		},
	}
	c.Flags().StringVar(&markdown, "markdown", "docs/cli", "directory for the Markdown reference")
	c.Flags().StringVar(&man, "man", "docs/man", "directory for the man pages")
	return c
}
