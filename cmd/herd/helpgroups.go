package main

import (
	"strings"

	"github.com/herdlab/herd/internal/render"
	"github.com/spf13/cobra"
)

// useGroupedFlags makes c's help (and its subcommands') list the local
// flags by group.
func useGroupedFlags(c *cobra.Command) {
	cobra.AddTemplateFunc("groupedFlags", render.GroupedFlags)
	t := c.UsageTemplate()
	const plain = `{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}`
	if !strings.Contains(t, plain) {
		panic("cobra's usage template no longer lists local flags as herd expects")
	}
	c.SetUsageTemplate(strings.Replace(t, plain, `{{if .HasAvailableLocalFlags}}

{{groupedFlags .LocalFlags | trimTrailingWhitespaces}}{{end}}`, 1))
}
