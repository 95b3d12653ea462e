package main

import (
	"fmt"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// chainFlags are the queue chain's bounds.
type chainFlags struct {
	maxBacklog, maxQueue int
}

func (f *chainFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.IntVar(&f.maxBacklog, "max-backlog", solve.DefaultChainBacklog, fmt.Sprintf("chain, open loop: live requests beyond which a path leaves the chain as overflowed (1…%d)", 65535))
	fs.IntVar(&f.maxQueue, "max-queue", solve.DefaultChainQueue, fmt.Sprintf("chain, open loop: queue length beyond which a path leaves the chain as overflowed (1…%d)", 65535))
}

// options puts the queue chain's traffic, controls and bounds into
// opts.Solve, and refuses them with another method.
func (f *chainFlags) options(fs *pflag.FlagSet, opts *modelOptions, traffic *trafficFlags, controls *controlFlags) error {
	mode, tr, _, err := traffic.traffic(fs, opts.Scenario)
	if err != nil {
		return err
	}
	ctl, err := controls.controls(fs, opts.Scenario)
	if err != nil {
		return err
	}
	if opts.Method != solve.MethodChain {
		for _, n := range []string{"max-backlog", "max-queue"} {
			if fs.Changed(n) {
				return usageError{fmt.Errorf("--%s needs --method chain", n)}
			}
		}
		if mode != model.CohortRun || ctl.Active() {
			return usageError{fmt.Errorf("open-loop traffic and retry controls need --method chain (the other models follow a cohort without controls)")}
		}
		return nil
	}
	if mode == model.ClosedRun {
		return usageError{fmt.Errorf("--loop closed: the chain follows a cohort or open-loop traffic (--rate)")}
	}
	if mode == model.OpenRun {
		opts.Solve.Traffic = &tr
	}
	opts.Solve.Controls = ctl
	opts.Solve.Chain = solve.QueueChainOptions{MaxBacklog: f.maxBacklog, MaxQueue: f.maxQueue, Tail: 1e-12}
	return nil
}
