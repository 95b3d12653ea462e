package main

import (
	"github.com/herdlab/herd/config"
	"github.com/spf13/cobra"
)

// configUsage is --config's help.
const configUsage = "read the retry policy from a configuration file instead of --policy: " + config.Formats

func registerConfig(c *cobra.Command, path *string, usage string) {
	c.Flags().StringVar(path, "config", "", usage)
}

// readConfig reads the files of --config and prints, on standard error,
// the table of what herd understood of each.
func readConfig(ios *iostreams, list string) ([]config.Reading, error) {
	rs, err := config.ReadAll(list)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if err := r.Print(ios.ErrOut); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// oneConfig is the one policy of --config for a command that plays one.
func oneConfig(ios *iostreams, list string) (config.Reading, error) {
	rs, err := readConfig(ios, list)
	if err != nil {
		return config.Reading{}, err
	}
	return config.One(rs)
}
