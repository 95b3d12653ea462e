//go:build fuzzcli

package main

// Every flag of every command, generated from the command tree with
// hostile values of its type, run against the built binary (HERD, or one
// this test builds) under a 4 GB address-space limit: no case may panic
// (exit 3), die out of memory, exit 1 for what it was given, leave a
// refusal that names no flag or file given, leak an internal name, or
// outlive SIGINT by more than a second. A new flag is fuzzed without
// editing this file. make fuzz-cli runs it (about four minutes on 2 cores).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

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

type fuzzCase struct{ args []string }

// fuzzCases walks the tree: each runnable command, each of its flags and
// its inherited ones, each hostile value.
func fuzzCases(root *cobra.Command) []fuzzCase {
	skip := map[string]bool{"help": true, "completion": true, "gen-docs": true}
	var out []fuzzCase
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if skip[sub.Name()] {
				continue
			}
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
		if !c.Runnable() || len(path) == 0 {
			return
		}
		seen := map[string]bool{}
		visit := func(f *pflag.Flag) {
			if seen[f.Name] || f.Name == "help" {
				return
			}
			seen[f.Name] = true
			for _, v := range fuzzValues(f.Value.Type()) {
				out = append(out, fuzzCase{args: append(append([]string(nil), path...), "--"+f.Name+"="+v)})
			}
		}
		c.LocalFlags().VisitAll(visit)
		c.InheritedFlags().VisitAll(visit)
	}
	walk(root, nil)
	return out
}

// internalName matches Go identifiers that are not the user's words: a
// package-qualified name, a struct dump, a formatting error.
var internalName = regexp.MustCompile(`\b(model|solve|montecarlo|analysis|policy|sweep|render|control)\.[A-Z]|%!|<nil>|\bmain\.|\*[a-z]+\.[A-Z]|\b[A-Z][a-z]+(Of|Form|Error|Options|Workload)\b`)

func TestFlagFuzz(t *testing.T) {
	herd := os.Getenv("HERD")
	if herd == "" {
		herd = filepath.Join(t.TempDir(), "herd")
		if out, err := exec.Command("go", "build", "-o", herd, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	f := &factory{IO: &iostreams{}, Getenv: func(string) string { return "" }}
	cases := fuzzCases(newRootCmd(f))
	t.Logf("%d cases", len(cases))
	var mu sync.Mutex
	var failed []string
	work := make(chan fuzzCase)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				if why := fuzzOne(t, herd, c.args); why != "" {
					mu.Lock()
					failed = append(failed, "herd "+strings.Join(quoteArgs(c.args), " ")+": "+why)
					mu.Unlock()
				}
			}
		}()
	}
	for _, c := range cases {
		work <- c
	}
	close(work)
	wg.Wait()
	sort.Strings(failed)
	for _, f := range failed {
		t.Error(f)
	}
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fmt.Sprintf("%q", a)
	}
	return out
}

// fuzzOne runs one case in a fresh directory and says what is wrong with
// it ("" when nothing). A case still running after 3 s is sent SIGINT and
// must end with 130 within a second.
func fuzzOne(t *testing.T, herd string, args []string) string {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		return "mkfifo: " + err.Error()
	}
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -v 4000000; exec "$0" "$@"`, herd}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COLUMNS=100")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = nil
	if err := cmd.Start(); err != nil {
		return err.Error()
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	interrupted := false
	select {
	case err = <-done:
	case <-time.After(3 * time.Second):
		interrupted = true
		_ = cmd.Process.Signal(os.Interrupt)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second+300*time.Millisecond)
		defer cancel()
		select {
		case err = <-done:
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-done
			return "still running a second after SIGINT"
		}
	}
	code := cmd.ProcessState.ExitCode()
	msg := stderr.String()
	first := strings.SplitN(strings.TrimSpace(msg), "\n", 2)[0]
	switch {
	case strings.Contains(msg, "out of memory"):
		return "the runtime ran out of memory"
	case code == exitInternal || strings.Contains(msg, "\ngoroutine "):
		return "internal error: " + first
	case interrupted && code != exitInterrupted:
		return fmt.Sprintf("exit %d after SIGINT, want %d (%v)", code, exitInterrupted, err)
	case code == exitFailure:
		return "exit 1 for a usage problem: " + first
	case internalName.MatchString(msg):
		return "an internal name in: " + first
	case code == exitUsage && !namesGiven(msg, args):
		return "refusal names no flag or file given: " + first
	}
	return ""
}

// namesGiven reports whether msg names the flag given (args' last) or its
// value when that is a path.
func namesGiven(msg string, args []string) bool {
	flag := args[len(args)-1]
	name, value, _ := strings.Cut(flag, "=")
	if strings.Contains(msg, name) {
		return true
	}
	return (value == "fifo" || strings.Contains(value, "/") || strings.HasSuffix(value, ".yaml")) && strings.Contains(msg, value)
}
