package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/herdlab/herd/internal/buildinfo"
	"github.com/herdlab/herd/internal/interrupt"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/internal/usage"
	"github.com/herdlab/herd/model"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// iostreams are a command's standard streams and whether they are
// terminals: a table for the people at a terminal and JSON for programs,
// and a progress bar only where someone watches.
type iostreams struct {
	In             io.Reader
	Out, ErrOut    io.Writer
	OutTTY, ErrTTY bool
	// Width is the width of the terminal on standard output, 0 when it
	// is none: tables are fitted to it.
	Width int
}

// systemStreams are the process's own streams.
func systemStreams() *iostreams {
	ios := &iostreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, OutTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr)}
	if ios.OutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			ios.Width = w
		}
	}
	return ios
}

// factory is what every command is made from: its streams, the
// environment (sweep --shard auto reads a scheduler's variables), which
// herd this is (tests give a fixed build, so that goldens hold no real
// revision) and the command line, for the cite line of every output.
type factory struct {
	IO     *iostreams
	Getenv func(string) string
	Build  func() buildinfo.Build
	Args   []string // as typed, without the program's name
}

// provenance is the cite line's facts known before a command runs: the
// build and the command line.
func (f *factory) provenance() render.Provenance {
	b := buildinfo.Build{Version: "(unknown)", Revision: buildinfo.UnknownRevision}
	if f.Build != nil {
		b = f.Build()
	}
	return b.Provenance(f.Args)
}

// The exit statuses (the root command's help lists them).
const (
	exitOK          = 0
	exitFailure     = 1   // a runtime failure: a failed check or write, a corrupted row, …
	exitUsage       = 2   // a usage error or a limit, naming the flag to change
	exitInternal    = 3   // a bug in herd: a panic, reported with its stack
	exitInterrupted = 130 // SIGINT or SIGTERM: stopped, nothing half-written (128 + SIGINT)
)

// run builds the command tree, executes it and returns the exit status.
func run(args []string, ios *iostreams) int {
	return runWith(&factory{IO: ios, Getenv: os.Getenv, Build: sync.OnceValue(buildinfo.Detect)}, args)
}

// runWith executes args on the command tree made from f; a signal that
// came as the run ended, too late for execute to see, still makes it 130.
func runWith(f *factory, args []string) int {
	ctx, watch := interrupt.Start()
	f.Args = args
	code := execute(ctx, newRootCmd(f), args, f.IO.ErrOut)
	if watch.Stop() && code == exitOK {
		fmt.Fprintln(f.IO.ErrOut, "herd: interrupted")
		return exitInterrupted
	}
	return code
}

// execute runs a command tree on args and turns its error into the exit
// status: 2 for a usage error (a flag cobra refused, a usageError, a field
// out of range, a scenario an engine refuses), 130 when a signal stopped
// it, 3 for a panic (a bug: its stack goes to stderr), 1 for any other
// failure.
func execute(ctx context.Context, root *cobra.Command, args []string, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "herd: internal error (a bug in herd; please report it with this output): %v\n%s", r, debug.Stack())
			code = exitInternal
		}
	}()
	root.SetArgs(args)
	started := false
	root.PersistentPreRun = func(*cobra.Command, []string) { started = true }
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil {
		// A signal: "interrupted" says more than "context canceled".
		if errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "interrupted") {
			fmt.Fprintln(stderr, "herd: interrupted")
		} else {
			fmt.Fprintln(stderr, "herd:", err)
		}
		return exitInterrupted
	}
	err = usage.Explain(err, strings.TrimPrefix(cmd.CommandPath(), root.Name()+" "), cmd.Flags())
	fmt.Fprintln(stderr, "herd:", err)
	if ue := (usageError{}); !started || errors.As(err, &ue) || usage.Refused(err) {
		return exitUsage
	}
	return exitFailure
}

func newRootCmd(f *factory) *cobra.Command {
	root := newBareRoot(f)
	root.AddCommand(
		newCmdSimulate(f, nil),
		newCmdReproduce(f),
		newCmdPlots(f, nil),
		newCmdVersion(f, nil),
		newCmdModel(f, nil),
		newCmdValidate(f, nil),
		newCmdPresets(f, nil),
		newCmdAudit(f, nil),
		newCmdGenDocs(f, nil),
		newCmdClaims(f, nil),
		newCmdSweep(f, nil),
		newCmdMerge(f, nil),
		newCmdPaperData(f, nil),
		newCmdDelays(f, nil),
		newCmdCite(f, nil),
		newCmdCompare(f, nil),
		newCmdService(f, nil),
	)
	return root
}

// newBareRoot is the root command without its subcommands.
func newBareRoot(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "herd",
		Short: "Retry backoff with jitter: what a thundering herd costs, with confidence intervals",
		Long: `herd measures what a retry policy costs a server when N clients fail at the
same moment and retry: the calls the server receives and the time until every
client is served. It answers two independent ways that must agree — analytical
models and seeded, parallel Monte Carlo — and every estimate carries its 95%
interval and its provenance.

Exit status: 0 on success; 1 for a runtime failure (a failed check, a write
that failed, a corrupted row); 2 for a usage error or a limit (the message
names the flag to change, e.g. --max-memory, or the file herd will not read:
missing, not a regular file, too large); 130 when SIGINT or SIGTERM stopped the run (it
prints "interrupted"; files are left whole, a sweep resumable); 3 for an
internal error (a bug in herd), reported with its stack on stderr.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       render.VersionText(f.provenance()),
	}
	root.SetVersionTemplate("{{.Version}}")
	useGroupedFlags(root)
	addProfileFlag(root)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// A scenario flag's value is refused by the spec's own words.
		if fe := (*model.FieldError)(nil); errors.As(err, &fe) {
			err = fe
		}
		return usageError{fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
	})
	return root
}
