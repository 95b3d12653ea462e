package main

import (
	"fmt"
	"strings"

	"github.com/herdlab/herd/config"
	"github.com/herdlab/herd/model"
	"github.com/spf13/cobra"
)

// configUsage is --config's help.
const configUsage = "read the retry policy from a configuration file instead of --policy: a gRPC service config (methodConfig[].retryPolicy, retryThrottling), an Envoy retry_policy and circuit_breakers, an AWS config file (retry_mode, max_attempts), resilience4j retry instances, Polly v8 RetryStrategyOptions (JSON) or a client-go wait.Backoff; herd prints what it understood on standard error"

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

// oneConfig is the one policy of --config for a command that plays one:
// a file that holds several is refused, naming them.
func oneConfig(ios *iostreams, list string) (config.Reading, error) {
	rs, err := readConfig(ios, list)
	if err != nil {
		return config.Reading{}, err
	}
	if len(rs) != 1 {
		var names []string
		for _, r := range rs {
			names = append(names, r.Label())
		}
		return config.Reading{}, usageError{fmt.Errorf("--config holds %d retry policies (%s); this command plays one: keep one in the file, or compare them with herd compare --config", len(rs), strings.Join(names, ", "))}
	}
	return rs[0], nil
}

// configured is spec with the policy of r, refusing the flags that would
// set the policy a second time.
func configured(f *scenarioFlags, r config.Reading) (model.Spec, error) {
	for _, name := range []string{"policy", "base", "cap", "fixed-delay"} {
		if f.changed(name) {
			return model.Spec{}, usageError{fmt.Errorf("--%s and --config both give the policy; give one", name)}
		}
	}
	return f.spec.WithConfigured(r.Policy), nil
}

// noControls refuses the controls of a reading on a command that plays
// cohorts without them.
func noControls(r config.Reading, command string) error {
	what := ""
	switch {
	case r.Throttling.MaxTokens != 0:
		what = "retryThrottling"
	case r.Bucket != "":
		what = "the AWS retry quota (retry_mode)"
	case r.Budget != nil:
		return budgetRefused(r)
	default:
		return nil
	}
	return usageError{fmt.Errorf("--config %s gives %s, which acts on a stream of requests: %s plays a cohort without controls; herd simulate --config with --rate or --loop closed plays it", r.File, what, command)}
}

func budgetRefused(r config.Reading) error {
	return usageError{fmt.Errorf("--config %s gives an Envoy retry_budget, one state shared by every request through an Envoy, which herd does not simulate; herd delays --config prints its decisions on failures that come together", r.File)}
}
