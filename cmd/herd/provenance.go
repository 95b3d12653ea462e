package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"

	toolkit "github.com/herdlab/herd" // the root package: CITATION.cff
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// Build says which herd this binary is: its version (CITATION.cff's) and
// the VCS revision it was built from, and whether that tree was modified.
type Build struct {
	Version  string
	Revision string
	Modified bool
	Go       string
	// Source says where Revision comes from.
	Source string
}

// Set by `make build` (-ldflags -X) where go build cannot stamp the
// revision itself (a git worktree, or -buildvcs=false in GOFLAGS).
var (
	stampRevision string
	stampModified string // "true" or "false"
)

const unknownRevision = "(unknown: built without VCS information)"

// detectBuild reads the revision from, in order: go build's VCS stamp, the
// stamp of make build, and — for go run, which stamps nothing — the git
// checkout in the working directory when it is herd's own.
func detectBuild() Build {
	b := Build{Version: toolkit.Version(), Revision: unknownRevision}
	info, ok := debug.ReadBuildInfo()
	if ok {
		b.Go = info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision, b.Source = s.Value, "go build's VCS stamp"
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	switch {
	case b.Source != "":
	case stampRevision != "":
		b.Revision, b.Modified, b.Source = stampRevision, stampModified == "true", "make build's stamp"
	default:
		checkoutRevision(&b)
	}
	return b
}

// checkoutRevision fills in the revision from the git checkout in the
// working directory when it is herd's own module: that is where `go run
// ./cmd/herd` builds from.
func checkoutRevision(b *Build) {
	mod, err := os.ReadFile("go.mod")
	if err != nil || !strings.HasPrefix(string(mod), "module github.com/herdlab/herd\n") {
		return
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return
	}
	b.Revision, b.Source = strings.TrimSpace(string(rev)), "the git checkout in the working directory (binary not VCS-stamped)"
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
		b.Modified = len(bytes.TrimSpace(st)) > 0
	}
}

// Provenance says which herd computed a result and how to compute it
// again: the build, the command as typed, and the run's seed, trials and
// engine. Cite is all of it in the one line every format carries.
type Provenance struct {
	Version  string  `json:"version"`
	Revision string  `json:"revision"`
	Modified bool    `json:"modified"`
	Go       string  `json:"go,omitempty"`
	Source   string  `json:"revision_source,omitempty"`
	Command  string  `json:"command,omitempty"`
	Seed     *uint64 `json:"seed,omitempty"`
	Trials   int     `json:"trials,omitempty"`
	Engine   string  `json:"engine,omitempty"`
	Cite     string  `json:"cite"`
}

// provenance is the build's provenance for a command line (args without
// the program's name); the run's facts are added by withRun.
func (b Build) provenance(args []string) Provenance {
	p := Provenance{Version: b.Version, Revision: b.Revision, Modified: b.Modified, Go: b.Go, Source: b.Source}
	if args != nil {
		p.Command = commandLine(args)
	}
	p.Cite = p.line()
	return p
}

// withRun adds a run's seed, trials and engine ("" when one engine is not
// the whole story: each row then names its own).
func (p Provenance) withRun(seed uint64, trials int, engine string) Provenance {
	p.Seed, p.Trials, p.Engine = &seed, trials, engine
	p.Cite = p.line()
	return p
}

// line is the cite line: "herd 0.9.0, revision 1a2b… (modified); command:
// herd simulate …; seed 1, 1000 trials, engine clients".
func (p Provenance) line() string {
	s := "herd " + p.Version + ", revision " + p.Revision
	if p.Modified {
		s += " (modified)"
	}
	if p.Command != "" {
		s += "; command: " + p.Command
	}
	var run []string
	if p.Seed != nil {
		run = append(run, fmt.Sprintf("seed %d", *p.Seed))
	}
	if p.Trials > 0 {
		run = append(run, fmt.Sprintf("%d trials", p.Trials))
	}
	if p.Engine != "" {
		run = append(run, "engine "+p.Engine)
	}
	if len(run) > 0 {
		s += "; " + strings.Join(run, ", ")
	}
	return s
}

// markdown is the cite line in markdown: the command as code, so that
// nothing in it is read as emphasis or a table cell's end.
func (p Provenance) markdown() string {
	if p.Command == "" {
		return "Cite: " + p.Cite
	}
	q := p
	q.Command = "`" + p.Command + "`"
	return "Cite: " + q.line()
}

// commandLine is the command as a shell would take it back: herd and the
// arguments, each quoted when the shell would split or expand it.
func commandLine(args []string) string {
	words := []string{"herd"}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

func shellQuote(s string) string {
	const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%"
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !strings.ContainsRune(plain, r) }) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// engines names the engines that play scs when want is asked for, each
// once, in the order they first play.
func engines(want montecarlo.EngineName, scs ...model.Scenario) string {
	var names []string
	for _, sc := range scs {
		c, err := montecarlo.Choose(sc, want)
		if err != nil {
			continue
		}
		if n := string(c.Engine); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}
