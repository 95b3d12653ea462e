// Package buildinfo says which herd a binary is, for the cite line on
// every result: its version, the revision it was built from, and where
// that revision was read.
package buildinfo

import (
	"bytes"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"

	toolkit "github.com/herdlab/herd" // the root package: CITATION.cff
	"github.com/herdlab/herd/internal/render"
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

const UnknownRevision = "(unknown: built without VCS information)"

// Detect reads the revision from, in order: go build's VCS stamp, the
// stamp of make build, and — for go run, which stamps nothing — the git
// checkout in the working directory when it is herd's own.
func Detect() Build {
	b := Build{Version: toolkit.Version(), Revision: UnknownRevision}
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

// Provenance is the build's provenance for a command line (args without
// the program's name); the run's facts are added by WithRun.
func (b Build) Provenance(args []string) render.Provenance {
	p := render.Provenance{Version: b.Version, Revision: b.Revision, Modified: b.Modified, Go: b.Go, Source: b.Source}
	if args != nil {
		p.Command = render.CommandLine(args)
	}
	p.Cite = p.Line()
	return p
}
