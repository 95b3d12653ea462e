package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/herdlab/herd/internal/outfile"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

var formats = []string{"table", "csv", "json"}

// outputFlags choose the format and destination of a command's result.
type outputFlags struct {
	format, out string
	// markdown, set before register, adds --format markdown for commands
	// whose result is a table worth pasting into documents.
	markdown bool
}

func (f *outputFlags) allowed() []string {
	if f.markdown {
		return append(append([]string(nil), formats...), "markdown")
	}
	return formats
}

func (f *outputFlags) register(c *cobra.Command) {
	list := strings.Join(f.allowed(), "|")
	c.Flags().StringVar(&f.format, "format", "", "output format: "+list+" (default: table on a terminal, json otherwise)")
	c.Flags().StringVar(&f.out, "out", "", "write the result to this file instead of standard output (-): a regular file is replaced atomically keeping its mode, a symbolic link's target is written, a device or FIFO is written as it stands; a directory or a read-only file is refused")
	complete(c, "format", f.allowed())
}

// output is how and where a command writes its result: the format
// resolved from the flags, and the --out file ("" for standard output).
type output struct {
	Format string // table, csv, json or markdown
	Path   string
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
			return "", outError(err)
		}
	}
	return path, nil
}

// resolve picks the format: the flag, else the --out file's extension, else
// table on a terminal and JSON otherwise.
func (f *outputFlags) resolve(ios *iostreams) (output, error) {
	path, err := f.path()
	if err != nil {
		return output{}, err
	}
	o := output{Path: path}
	if f.format != "" {
		for _, v := range f.allowed() {
			if f.format == v {
				o.Format = v
				return o, nil
			}
		}
		return o, usageError{fmt.Errorf("--format must be one of %s, got %q", strings.Join(f.allowed(), ", "), f.format)}
	}
	switch strings.ToLower(filepath.Ext(o.Path)) {
	case ".md":
		if f.markdown {
			o.Format = "markdown"
			return o, nil
		}
	case ".json":
		o.Format = "json"
		return o, nil
	case ".csv":
		o.Format = "csv"
		return o, nil
	case ".txt":
		o.Format = "table"
		return o, nil
	}
	o.Format = "json"
	if o.Path == "" && ios.OutTTY {
		o.Format = "table"
	}
	return o, nil
}

// write renders the result into memory, then writes it to standard output
// or, through a temporary file and a rename, to --out: a failed run leaves
// no half-written file.
func (o output) write(ios *iostreams, render func(w io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	if o.Path == "" {
		_, err := ios.Out.Write(buf.Bytes())
		return err
	}
	return writeFileAtomic(o.Path, buf.Bytes())
}

// outError makes a refused --out a usage error (exit 2).
func outError(err error) error {
	var re *outfile.RefusedError
	if errors.As(err, &re) {
		return usageError{err}
	}
	return err
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

func writeFileAtomic(path string, data []byte) error { return outError(outfile.Write(path, data)) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Provenance says which herd computed a result.
type Provenance struct {
	Version  string `json:"version"`
	Revision string `json:"revision"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	// Source says where Revision comes from when the binary was built
	// without VCS stamping (go run with -buildvcs=false).
	Source string `json:"revision_source,omitempty"`
}

func provenance() Provenance {
	p := Provenance{Version: "(unknown)", Revision: "(unknown: built without VCS information)"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return p
	}
	p.Version, p.Go = info.Main.Version, info.GoVersion
	stamped := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			p.Revision, stamped = s.Value, true
		case "vcs.modified":
			p.Modified = s.Value == "true"
		}
	}
	if !stamped {
		checkoutRevision(&p)
	}
	return p
}

// checkoutRevision fills in the revision from the git checkout in the
// working directory when it is herd's own module: that is where `go run
// ./cmd/herd` builds from, and go run does not stamp VCS information.
func checkoutRevision(p *Provenance) {
	mod, err := os.ReadFile("go.mod")
	if err != nil || !strings.HasPrefix(string(mod), "module github.com/herdlab/herd\n") {
		return
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return
	}
	p.Revision, p.Source = strings.TrimSpace(string(rev)), "git checkout in the working directory (binary not VCS-stamped)"
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
		p.Modified = len(bytes.TrimSpace(st)) > 0
	}
}

// progress reports work done on stderr when it is a terminal and the run has
// lasted more than a second; otherwise it stays silent.
type progress struct {
	w       io.Writer
	desc    string
	total   int
	started time.Time
	bar     *progressbar.ProgressBar
}

func newProgress(ios *iostreams, desc string, total int) *progress {
	if !ios.ErrTTY {
		return nil
	}
	return &progress{w: ios.ErrOut, desc: desc, total: total, started: time.Now()}
}

// set records that done of total units are finished.
func (p *progress) set(done int) {
	if p == nil {
		return
	}
	if p.bar == nil {
		if time.Since(p.started) < time.Second {
			return
		}
		p.bar = progressbar.NewOptions(p.total, progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.desc), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
	}
	_ = p.bar.Set(done)
}

// describe replaces the bar's description, e.g. with a rate.
func (p *progress) describe(desc string) {
	if p != nil {
		p.desc = desc
		if p.bar != nil {
			p.bar.Describe(desc)
		}
	}
}

func (p *progress) finish() {
	if p != nil && p.bar != nil {
		_ = p.bar.Finish()
	}
}
