package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/herdlab/herd/internal/outfile"
	"github.com/herdlab/herd/internal/progress"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/montecarlo"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// outputFlags choose the format and destination of a command's result.
type outputFlags struct {
	format, out string
	wide        bool
	// markdown, set before register, adds --format markdown for commands
	// whose result is a table worth pasting into documents.
	markdown bool
}

func (f *outputFlags) allowed() []string {
	if f.markdown {
		return append(append([]string(nil), render.Formats...), "markdown")
	}
	return render.Formats
}

func (f *outputFlags) register(c *cobra.Command) {
	list := strings.Join(f.allowed(), "|")
	c.Flags().StringVar(&f.format, "format", "", "output format: "+list+" (default: table on a terminal, json otherwise)")
	c.Flags().StringVar(&f.out, "out", "", "write the result to this file instead of standard output (-): a regular file is replaced atomically keeping its mode, a symbolic link's target is written, a device or FIFO is written as it stands; a directory or a read-only file is refused")
	complete(c, "format", f.allowed())
	f.registerWide(c)
}

func (f *outputFlags) registerWide(c *cobra.Command) {
	c.Flags().BoolVar(&f.wide, "wide", false, "table: show every column, however wide (default: fit the terminal, or $COLUMNS, wrapping text and leaving out optional columns)")
}

// width is what a table is fitted to: $COLUMNS when set, else the
// terminal's width when the table goes to it; 0 (no limit) with --wide,
// for other formats, and for a table going to a file or a pipe.
func (f *outputFlags) width(fac *factory, o output) int {
	if f.wide || o.Format != "table" {
		return 0
	}
	if c, err := strconv.Atoi(fac.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	if o.Path == "" {
		return fac.IO.Width
	}
	return 0
}

// output is how and where a command writes its result: the format
// resolved from the flags, and the --out file ("" for standard output).
type output struct {
	Format string // table, csv, json or markdown
	Path   string
	// Cite is the provenance that write puts on the result: the build and
	// the command line from the factory; commands add their run's seed,
	// trials and engine (Provenance.WithRun) and put it in their JSON.
	Cite render.Provenance
	// Width is the width tables and their text are fitted to (0: none).
	Width int
}

// stdoutPath reads an --out value: "-" is standard output, as "" is.
func stdoutPath(path string) string {
	if path == "-" {
		return ""
	}
	return path
}

// path is the --out file ("" for standard output), refused before the
// run when it cannot be written (a directory, a read-only file).
func (f *outputFlags) path() (string, error) {
	path := stdoutPath(f.out)
	if path != "" {
		if err := outfile.Check(path); err != nil {
			return "", err
		}
	}
	return path, nil
}

// resolve picks the format: the flag, else the --out file's extension, else
// table on a terminal and JSON otherwise.
func (f *outputFlags) resolve(fac *factory) (output, error) {
	ios := fac.IO
	path, err := f.path()
	if err != nil {
		return output{}, err
	}
	o := output{Path: path, Cite: fac.provenance()}
	if o.Format, err = render.FormatOf(f.format, f.allowed(), o.Path, ios.OutTTY); err != nil {
		return o, err
	}
	o.Width = f.width(fac, o)
	return o, nil
}

// writeResult writes r in the format asked for, with its cite line.
func (o output) writeResult(ios *iostreams, r render.Result) error {
	b, err := render.Write(o.Format, o.Cite, o.Width, r)
	if err != nil {
		return err
	}
	return o.put(ios, b)
}

// runOutput is what every command that runs trials and writes a result
// takes from its flags: the context, the run (--trials, --seed,
// --workers, --engine …) and the output (--format, --out).
type runOutput struct {
	IO     *iostreams
	Ctx    context.Context
	Run    montecarlo.Options
	Output output
}

// resolve reads the run's and the output's flags into o.
func (o *runOutput) resolve(c *cobra.Command, f *factory, run *runFlags, out *outputFlags) error {
	o.Ctx = c.Context()
	var err error
	if o.Run, err = run.options(); err != nil {
		return err
	}
	o.Output, err = out.resolve(f)
	return err
}

// write renders the result into memory with its cite line
// (render.Document), then writes it to standard output or, through a
// temporary file and a rename, to --out: a failed run leaves no
// half-written file.
func (o output) write(ios *iostreams, body func(w io.Writer) error) error {
	b, err := render.Document(o.Format, o.Cite, o.Width, body)
	if err != nil {
		return err
	}
	return o.put(ios, b)
}

// put writes a rendered result to standard output or to --out.
func (o output) put(ios *iostreams, b []byte) error {
	if o.Path == "" {
		_, err := ios.Out.Write(b)
		return err
	}
	return writeFileAtomic(o.Path, b)
}

// warn prints warnings on stderr unless they go into a table on standard
// output, which prints them itself.
func (o output) warn(ios *iostreams, warnings []string) {
	if o.Format == "table" && o.Path == "" {
		return
	}
	for _, w := range warnings {
		fmt.Fprintln(ios.ErrOut, "herd: warning:", w)
	}
}

func writeFileAtomic(path string, data []byte) error { return outfile.Write(path, data) }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress is a progress bar on the standard error when it is a
// terminal.
func newProgress(ios *iostreams, desc string, total int) *progress.Bar {
	return progress.New(ios.ErrOut, ios.ErrTTY, desc, total)
}
