package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/spf13/cobra"
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// run builds the command tree, executes it and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	started := false
	root.PersistentPreRun = func(*cobra.Command, []string) { started = true }
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "herd:", err)
	var ue usageError
	var fe *model.FieldError
	var le *montecarlo.LimitError // a scenario an engine refuses is bad input
	if !started || errors.As(err, &ue) || errors.As(err, &fe) || errors.As(err, &le) {
		return 2
	}
	return 1
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "herd",
		Short: "Retry backoff with jitter: what a thundering herd costs, with confidence intervals",
		Long: `herd measures what a retry policy costs a server when N clients fail at the
same moment and retry: the calls the server receives and the time until every
client is served. It answers two independent ways that must agree — analytical
models and seeded, parallel Monte Carlo — and every estimate carries its 95%
interval and its provenance.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
	})
	root.AddCommand(
		newSimulateCmd(),
		newReproduceCmd(),
		newPlotsCmd(),
		newVersionCmd(),
		newModelCmd(),
		newValidateCmd(),
		newPresetsCmd(),
		newAuditCmd(),
		newGenDocsCmd(),
		newClaimsCmd(),
		newSweepCmd(),
		newMergeCmd(),
		newPaperDataCmd(),
		newDelaysCmd(),
	)
	return root
}
