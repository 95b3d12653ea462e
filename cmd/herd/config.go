package main

import (
	"fmt"
	"slices"

	"github.com/herdlab/herd/config"
	"github.com/herdlab/herd/policy"
	"github.com/spf13/cobra"
)

// configUsage is --config's help.
const configUsage = "read the retry policy from a configuration file instead of --policy: " + config.Formats

// configFlags are --config and the choices its files cannot carry.
type configFlags struct {
	path  string
	envoy string
	cmd   *cobra.Command
}

// registerConfig adds --config and --envoy-backoff to c, whose RunE must
// be set: --envoy-backoff without --config is refused before it runs.
func registerConfig(c *cobra.Command, cf *configFlags, usage string) {
	cf.cmd = c
	c.Flags().StringVar(&cf.path, "config", "", usage)
	c.Flags().StringVar(&cf.envoy, "envoy-backoff", string(config.EnvoyCode), "how an Envoy --config's retry_back_off draws retry n's delay: code (what Envoy ≥ 1.14 does: 0…Iₙ−1 ms, Iₙ doubling from base_interval) or docs (the router docs' [0, (2ⁿ−1)·base_interval), Envoy's code before 1.14)")
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if cf.path == "" && cmd.Flags().Changed("envoy-backoff") {
			return usageError{fmt.Errorf("--envoy-backoff %s chooses how an Envoy --config is read; give --config with an Envoy retry_policy", cf.envoy)}
		}
		return run(cmd, args)
	}
}

// options are the reading options of the flags.
func (cf *configFlags) options() (config.Options, error) {
	e := config.EnvoyBackoff(cf.envoy)
	if !slices.Contains(config.EnvoyBackoffs(), e) {
		return config.Options{}, usageError{fmt.Errorf("--envoy-backoff must be one of %v, got %q", config.EnvoyBackoffs(), cf.envoy)}
	}
	return config.Options{Envoy: e}, nil
}

// readConfig reads the files of --config and prints, on standard error,
// the table of what herd understood of each.
func readConfig(ios *iostreams, cf *configFlags) ([]config.Reading, error) {
	o, err := cf.options()
	if err != nil {
		return nil, err
	}
	rs, err := config.ReadAll(cf.path, o)
	if err != nil {
		return nil, err
	}
	if cf.cmd.Flags().Changed("envoy-backoff") && !slices.ContainsFunc(rs, func(r config.Reading) bool {
		return r.Policy.Kind == policy.Envoy || r.Policy.Kind == policy.EnvoyDocs
	}) {
		return nil, usageError{fmt.Errorf("--envoy-backoff %s chooses how an Envoy retry_policy is read, and --config %s holds none", cf.envoy, cf.path)}
	}
	for _, r := range rs {
		if err := r.Print(ios.ErrOut); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// oneConfig is the one policy of --config for a command that plays one.
func oneConfig(ios *iostreams, cf *configFlags) (config.Reading, error) {
	rs, err := readConfig(ios, cf)
	if err != nil {
		return config.Reading{}, err
	}
	return config.One(rs)
}
