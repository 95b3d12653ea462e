//go:build long

// The test through the built binary builds herd twice (tens of seconds):
// it runs with the long suites (make test-long, .ci/run).

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdlab/herd/internal/render"
)

// citedCommands are the commands whose results people copy into reviews,
// each at a tiny scale, with the formats it has.
var citedCommands = []struct {
	args    string
	formats []string
}{
	{"simulate -n 50 -k 10 --trials 20", []string{"table", "csv", "markdown", "json"}},
	{"simulate -n 50 -k 20 --rate 16 --ticks 300 --outage 50 --trials 3", []string{"table", "csv", "markdown", "json"}},
	{"reproduce seed --trials 5", []string{"table", "csv", "markdown", "json"}},
	{"reproduce aws --trials 2", []string{"table", "csv", "markdown", "json"}},
	{"audit -n 50 --trials 5", []string{"table", "csv", "markdown", "json"}},
	{"claims --source seed --trials 2", []string{"table", "markdown", "json"}},
}

// TestProvenanceThroughTheBinary builds herd as a user does — go build in
// a git clone, which stamps the VCS revision into the binary — and runs it
// outside any checkout: every format of every cited command must name the
// revision `git rev-parse HEAD` gives, and mark a modified tree as such.
// The clone holds this tree's uncommitted changes too, so the binary is
// the code under test; a clean tree is then also built modified (a changed
// README) to see the mark appear.
func TestProvenanceThroughTheBinary(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	gitIn := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("git %s: %v (not a git checkout?)", strings.Join(args, " "), err)
		}
		return string(out)
	}
	top := strings.TrimSpace(gitIn(".", "rev-parse", "--show-toplevel"))
	head := strings.TrimSpace(gitIn(top, "rev-parse", "HEAD"))
	clone := filepath.Join(t.TempDir(), "herd")
	gitIn(top, "clone", "-q", "--no-checkout", top, clone)
	gitIn(clone, "checkout", "-q", "--detach", head)
	// Go's rule for vcs.modified: git status --porcelain prints anything.
	dirty := strings.TrimSpace(gitIn(top, "status", "--porcelain")) != ""
	if dirty {
		copyChanges(t, top, clone, gitIn)
	}
	run := t.TempDir() // not a checkout: the revision must come from the binary
	bin := buildHerd(t, clone)
	checkCited(t, bin, run, head, dirty)
	if !dirty {
		if err := os.WriteFile(filepath.Join(clone, "README.md"), []byte("changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		checkCited(t, buildHerd(t, clone), run, head, true)
	}
}

// copyChanges puts the uncommitted state of top into clone: the diff of
// tracked files and the untracked files git does not ignore.
func copyChanges(t *testing.T, top, clone string, gitIn func(string, ...string) string) {
	t.Helper()
	diff := gitIn(top, "diff", "--binary", "HEAD")
	if diff != "" {
		apply := exec.Command("git", "apply", "--whitespace=nowarn")
		apply.Dir, apply.Stdin = clone, strings.NewReader(diff)
		if out, err := apply.CombinedOutput(); err != nil {
			t.Fatalf("git apply: %v\n%s", err, out)
		}
	}
	for _, f := range strings.Split(strings.TrimSpace(gitIn(top, "ls-files", "--others", "--exclude-standard")), "\n") {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(top, f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(clone, f)), 0o755)
		if err := os.WriteFile(filepath.Join(clone, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// buildHerd builds cmd/herd in dir with VCS stamping on (whatever GOFLAGS
// says) and -trimpath, so that builds in other directories share the cache.
func buildHerd(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "herd")
	cmd := exec.Command("go", "build", "-buildvcs=true", "-trimpath", "-o", bin, "./cmd/herd")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// checkCited runs every cited command in every format and checks the
// revision and the mark.
func checkCited(t *testing.T, bin, dir, head string, modified bool) {
	t.Helper()
	for _, c := range citedCommands {
		for _, format := range c.formats {
			args := append(strings.Fields(c.args), "--format", format)
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("herd %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			checkOutput(t, "herd "+strings.Join(args, " "), format, string(out), head, modified)
		}
	}
	// compare writes a directory: its report, JSON and figure.
	out := filepath.Join(dir, "compare")
	cmd := exec.Command(bin, "compare", "-n", "50", "-k", "10/s", "--policy", "full,equal", "--trials", "20", "--force", "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("herd compare: %v\n%s", err, b)
	}
	for file, format := range map[string]string{render.CompareFiles.Report: "markdown", render.CompareFiles.Data: "json", render.CompareFiles.SVG: "svg"} {
		b, err := os.ReadFile(filepath.Join(out, file))
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, "herd compare: "+file, format, string(b), head, modified)
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"cite"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("herd %s: %v", args[0], err)
		}
		checkOutput(t, "herd "+args[0], "table", string(out), head, modified)
	}
}

func checkOutput(t *testing.T, what, format, out, head string, modified bool) {
	t.Helper()
	if format == "json" {
		var doc struct {
			Provenance struct {
				Revision string `json:"revision"`
				Modified bool   `json:"modified"`
				Command  string `json:"command"`
				Cite     string `json:"cite"`
			} `json:"provenance"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		p := doc.Provenance
		if p.Revision != head || p.Modified != modified || !strings.Contains(p.Cite, head) || !strings.HasPrefix(p.Command, "herd ") {
			t.Errorf("%s: provenance %+v, want revision %s, modified %v", what, p, head, modified)
		}
		return
	}
	if !strings.Contains(out, head) {
		t.Errorf("%s: the output does not name revision %s:\n%s", what, head, out)
	}
	if strings.Contains(out, "(modified)") != modified {
		t.Errorf("%s: marked modified %v, want %v:\n%s", what, !modified, modified, out)
	}
}

// 30 synchronized clients whose delays reach
// 10⁷ ticks finish after about 3·10⁸ ticks. The dense latency histograms
// took 80 bytes a tick (past 6 GB); the sparse ones take a run per
// distinct latency, and the run stays within the engine's delay ring
// (about 250 MB).
func TestLatencyMemoryAsFiled(t *testing.T) {
	p := runBounded(t, t.TempDir(), 1<<30, 10*time.Minute, "simulate", "-n", "30", "-k", "1", "--policy", "expo", "--cap", "1e7", "--trials", "1", "--workers", "1", "--format", "json")
	if p.code != 0 || p.maxRSS > 1<<30 {
		t.Errorf("exit %d after %v with %d MB resident, %q; want exit 0 within 1 GB", p.code, p.took, p.maxRSS>>20, p.stderr)
	}
}
