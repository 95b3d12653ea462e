//go:build fuzzcli

package main

// TestFlagFuzz runs every flag of every command, generated from the
// command tree with hostile values of its type, against the built binary
// (HERD, or one this test builds) under a 4 GB address-space limit. A new
// flag or command is fuzzed without editing this file.
//
// Selection: every runnable command but help, completion and gen-docs;
// each of its flags, local and inherited, once per command; each value of
// fuzzValues for the flag's type, in that order. A case is the command, its
// base and one flag=value, run in a fresh directory holding a FIFO named
// "fifo". The base is nothing, or, when the bare command is refused (it
// needs a flag or an argument), the words of the command's first example
// written in plain words, so that the value is judged in a run rather than
// behind that refusal (with no example, the bare refusal is the base's).
// Nothing is sampled: the cases are the same on every run.
//
// Each case is judged by what it must never do, one check per kind (a
// subtest each, so a kind can be read or run alone):
//
//	signal         a case still running after 1 s (-fuzz.sigint) and busy
//	               (0.1 s of CPU: past the runtime's start), or after 3 s,
//	               gets SIGINT and must end with 130 within a second (or 0
//	               when it was finishing: under 0.1 s of CPU after it)
//	memory         the Go runtime out of memory
//	internal       exit 3 or a goroutine dump (a panic)
//	exit-1         exit 1 for what it was given (a usage problem)
//	internal-name  an internal Go name in the message
//	names-no-flag  an exit-2 refusal that names neither the flag given nor
//	               its value when that is a file (unless it is the base's
//	               own refusal: the value was taken)
//
// Most cases are refused in milliseconds; those that run are cut by the
// SIGINT, so cases run several at a time (-fuzz.slots), each on one core
// (GOMAXPROCS=1) so that four of them load 2 cores about twice, and the
// wall time is mostly the runs' first second. make fuzz-cli runs it.

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var (
	fuzzOnly  = flag.String("fuzz.only", "", "run only the cases whose command line matches this regexp")
	fuzzSlots = flag.Int("fuzz.slots", 4, "how many cases run at once")
	fuzzAfter = flag.Duration("fuzz.sigint", time.Second, "how long a case runs before it gets SIGINT")
)

const (
	// sigintWithin is how soon after SIGINT it must have ended: the
	// promised second and the process's exit.
	sigintWithin = time.Second + 300*time.Millisecond
	// busyCPU is the CPU time after which a case is surely past the Go
	// runtime's start (and has its signal handler).
	busyCPU = 100 * time.Millisecond
)

// The kinds of failure, in the order they are reported.
var fuzzKinds = []string{"signal", "memory", "internal", "exit-1", "internal-name", "names-no-flag"}

// fuzzValues are the hostile values of each flag type.
func fuzzValues(typ string) []string {
	ints := []string{"-1", "0", "2147483648", "9223372036854775808", "1e3", "x"}
	floats := []string{"-1", "0", "NaN", "+Inf", "1e308", "x"}
	strs := []string{"", "x", "-1", "a|b\nc", "/dev/zero", "missing.yaml", "fifo", "1:2:*Inf"}
	switch {
	case strings.Contains(typ, "int") || strings.Contains(typ, "uint"):
		return ints
	case strings.Contains(typ, "float"):
		return floats
	case strings.Contains(typ, "duration"):
		return []string{"-1s", "0s", "1ns", "300000h", "x"}
	case typ == "bool":
		return []string{"true", "x"}
	}
	return strs
}

// fuzzCommand is a runnable command of the tree: its words, its flags
// (local, then inherited, each once) and its first plain example's words
// after the command's (nil when it has none).
type fuzzCommand struct {
	path    []string
	flags   []*pflag.Flag
	example []string
}

// plainWords are the words of an example line with no quoting, shell
// syntax or comment: what can be run without a shell.
var plainWords = regexp.MustCompile(`^[^'"\x60$|<>;&\\#*?]+$`)

func fuzzCommands(root *cobra.Command) []fuzzCommand {
	skip := map[string]bool{"help": true, "completion": true, "gen-docs": true}
	var out []fuzzCommand
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if !skip[sub.Name()] {
				walk(sub, append(append([]string(nil), path...), sub.Name()))
			}
		}
		if !c.Runnable() || len(path) == 0 {
			return
		}
		fc := fuzzCommand{path: path}
		seen := map[string]bool{}
		visit := func(f *pflag.Flag) {
			if !seen[f.Name] && f.Name != "help" {
				seen[f.Name] = true
				fc.flags = append(fc.flags, f)
			}
		}
		c.LocalFlags().VisitAll(visit)
		c.InheritedFlags().VisitAll(visit)
		prefix := "herd " + strings.Join(path, " ")
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if (line == prefix || strings.HasPrefix(line, prefix+" ")) && plainWords.MatchString(line) {
				fc.example = strings.Fields(strings.TrimPrefix(line, prefix))
				break
			}
		}
		out = append(out, fc)
	}
	walk(root, nil)
	return out
}

// cases are the command's cases on base: each flag with each value.
func (c fuzzCommand) cases(base []string) [][]string {
	var out [][]string
	for _, f := range c.flags {
		for _, v := range fuzzValues(f.Value.Type()) {
			args := append(append(append([]string(nil), c.path...), base...), "--"+f.Name+"="+v)
			out = append(out, args)
		}
	}
	return out
}

// internalName matches Go identifiers that are not the user's words: a
// package-qualified name, a struct dump, a formatting error.
var internalName = regexp.MustCompile(`\b(model|solve|montecarlo|analysis|policy|sweep|render|control)\.[A-Z]|%!|<nil>|\bmain\.|\*[a-z]+\.[A-Z]|\b[A-Z][a-z]+(Of|Form|Error|Options|Workload)\b`)

// fuzzFailure is what one case did wrong.
type fuzzFailure struct {
	kind, line string
}

func TestFlagFuzz(t *testing.T) {
	herd := os.Getenv("HERD")
	if herd == "" {
		herd = filepath.Join(t.TempDir(), "herd")
		if out, err := exec.Command("go", "build", "-o", herd, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	only := regexp.MustCompile(*fuzzOnly)
	f := &factory{IO: &iostreams{}, Getenv: func(string) string { return "" }}
	var cmds []fuzzCommand
	for _, c := range fuzzCommands(newRootCmd(f)) {
		if only.MatchString(strings.Join(c.path, " ") + " ") {
			cmds = append(cmds, c)
		}
	}
	start := time.Now()
	var mu sync.Mutex
	var failed []fuzzFailure
	ran, interrupted := 0, 0
	record := func(args []string, r fuzzRun, kind, why string) {
		mu.Lock()
		defer mu.Unlock()
		ran++
		if r.interrupted {
			interrupted++
		}
		if kind != "" {
			failed = append(failed, fuzzFailure{kind, "herd " + strings.Join(quoteArgs(args), " ") + ": " + why})
		}
	}

	// The bare commands, and the examples of those refused bare.
	bases := make([][]string, len(cmds))
	refusals := make([]string, len(cmds))
	var bare, examples [][]string
	for _, c := range cmds {
		bare = append(bare, c.path)
	}
	runCases(t, herd, bare, func(i int, r fuzzRun) {
		kind, why := judge(r, bare[i], "")
		record(bare[i], r, kind, why)
		switch {
		case r.code != exitUsage || r.interrupted:
		case cmds[i].example != nil:
			bases[i] = cmds[i].example
			examples = append(examples, append(append([]string(nil), cmds[i].path...), cmds[i].example...))
		default: // no example to run: the bare refusal is the base's
			refusals[i] = r.stderr
		}
	})
	runCases(t, herd, examples, func(i int, r fuzzRun) {
		kind, why := judge(r, examples[i], "")
		record(examples[i], r, kind, why)
		for j, c := range cmds {
			if r.code == exitUsage && bases[j] != nil && strings.Join(examples[i], " ") == strings.Join(append(append([]string(nil), c.path...), bases[j]...), " ") {
				refusals[j] = r.stderr
			}
		}
	})
	var cases [][]string
	var of []int // the command of each case
	for i, c := range cmds {
		for _, args := range c.cases(bases[i]) {
			if only.MatchString(strings.Join(args, " ")) {
				cases, of = append(cases, args), append(of, i)
			}
		}
	}
	runCases(t, herd, cases, func(i int, r fuzzRun) {
		kind, why := judge(r, cases[i], refusals[of[i]])
		record(cases[i], r, kind, why)
	})
	t.Logf("%d runs (%d commands bare, %d examples, %d flag cases) in %d slots, %d interrupted, %d failed, in %v",
		ran, len(bare), len(examples), len(cases), *fuzzSlots, interrupted, len(failed), time.Since(start).Round(time.Second))
	sort.Slice(failed, func(i, j int) bool { return failed[i].line < failed[j].line })
	for _, kind := range fuzzKinds {
		t.Run(kind, func(t *testing.T) {
			for _, f := range failed {
				if f.kind == kind {
					t.Error(f.line)
				}
			}
		})
	}
}

// runCases runs each case, -fuzz.slots at a time, and hands done its
// index and what it did (one call at a time).
func runCases(t *testing.T, herd string, cases [][]string, done func(i int, r fuzzRun)) {
	var mu sync.Mutex
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, *fuzzSlots) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r := runCase(t, herd, cases[i])
				mu.Lock()
				done(i, r)
				mu.Unlock()
			}
		}()
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fmt.Sprintf("%q", a)
	}
	return out
}

// fuzzRun is what one case did.
type fuzzRun struct {
	code        int
	stderr      string
	interrupted bool          // it got SIGINT
	after       time.Duration // the CPU time it used after SIGINT
	deaf        string        // why it was killed ("": it was not)
	err         error         // the wait's
}

// runCase runs one case in a fresh directory.
func runCase(t *testing.T, herd string, args []string) fuzzRun {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -v 4000000; exec "$0" "$@"`, herd}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COLUMNS=100", "GOMAXPROCS=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("%v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var r fuzzRun
	var cpu time.Duration // at SIGINT
	start := time.Now()
	look := time.NewTicker(20 * time.Millisecond)
	defer look.Stop()
wait:
	for {
		select {
		case r.err = <-done:
			break wait
		case <-look.C:
		}
		// A case is interrupted once it has run -fuzz.sigint and is busy
		// (past the runtime's start, which a loaded machine can stretch
		// past a second), or three times that when it is not.
		since := time.Since(start)
		if since < *fuzzAfter || (since < 3**fuzzAfter && cpuTime(cmd.Process.Pid) < busyCPU) {
			continue
		}
		r.interrupted = true
		cpu = cpuTime(cmd.Process.Pid)
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case r.err = <-done:
		case <-time.After(sigintWithin):
			// The CPU time it used since tells deafness (about the wall
			// time) from a machine too loaded to run it (far less).
			cpu = cpuTime(cmd.Process.Pid) - cpu
			_ = cmd.Process.Kill()
			<-done
			r.deaf = fmt.Sprintf("still running a second after SIGINT (%.2f s of CPU since)", cpu.Seconds())
		}
		break
	}
	r.code, r.stderr = cmd.ProcessState.ExitCode(), stderr.String()
	if r.interrupted && r.deaf == "" {
		r.after = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() - cpu
	}
	return r
}

// judge says what kind of thing is wrong with a case and why ("" when
// nothing); baseRefusal is the refusal of the case's base, if any.
func judge(r fuzzRun, args []string, baseRefusal string) (kind, why string) {
	if r.deaf != "" {
		return "signal", r.deaf
	}
	msg := r.stderr
	first := strings.SplitN(strings.TrimSpace(msg), "\n", 2)[0]
	switch {
	case strings.Contains(msg, "out of memory"):
		return "memory", "the runtime ran out of memory"
	case r.code == exitInternal || strings.Contains(msg, "\ngoroutine "):
		return "internal", "internal error: " + first
	case r.interrupted && r.code == exitOK && r.after < busyCPU:
		// SIGINT came as it finished: its output was already whole.
	case r.interrupted && r.code != exitInterrupted:
		return "signal", fmt.Sprintf("exit %d after SIGINT and %.2f s more of CPU, want %d (%v): %s", r.code, r.after.Seconds(), exitInterrupted, r.err, first)
	case r.code == exitFailure:
		return "exit-1", "exit 1 for a usage problem: " + first
	case internalName.MatchString(msg):
		return "internal-name", "an internal name in: " + first
	case r.code == exitUsage && msg != baseRefusal && !namesGiven(msg, args):
		return "names-no-flag", "refusal names no flag or file given: " + first
	}
	return "", ""
}

// cpuTime is the CPU time process pid has used (user and system, from
// /proc at the kernel's usual 100 ticks a second); 0 when unknown.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')') // the fields after the command's name
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// namesGiven reports whether msg names a flag or an argument given (a flag
// by its name, an argument or a flag's value when it is a path), or, for
// a bare command, anything at all.
func namesGiven(msg string, args []string) bool {
	last := args[len(args)-1]
	if !strings.HasPrefix(last, "--") {
		return true // a bare command or an example: no flag to name
	}
	name, value, _ := strings.Cut(last, "=")
	if strings.Contains(msg, name) {
		return true
	}
	return (value == "fifo" || strings.Contains(value, "/") || strings.HasSuffix(value, ".yaml")) && strings.Contains(msg, value)
}
