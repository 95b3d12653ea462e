package main

import (
	"fmt"

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

// options puts the run the flags ask for into opts.Solve.
func (f *chainFlags) options(fs *pflag.FlagSet, opts *modelOptions, traffic *trafficFlags, controls *controlFlags) error {
	mode, tr, _, err := traffic.traffic(fs, opts.Scenario)
	if err != nil {
		return err
	}
	ctl, err := controls.controls(fs, opts.Scenario)
	if err != nil {
		return err
	}
	return opts.Solve.Take(opts.Method, mode, tr, ctl, solve.QueueChainOptions{MaxBacklog: f.maxBacklog, MaxQueue: f.maxQueue}, fs.Changed)
}
