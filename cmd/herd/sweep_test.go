package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var sweepArgs = []string{"sweep", "-n", "40,80", "-k", "5", "--policy", "none,full,equal", "--cap", "8:32:*2", "--trials", "30", "--seed", "5"}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSweepShardAutoAndMerge shards a sweep four ways through the
// environment of a Kubernetes Indexed Job and of a Slurm job array, merges
// the shards, and requires the unsharded sweep's bytes.
func TestSweepShardAutoAndMerge(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.jsonl")
	if _, stderr, code := herd(t, append(sweepArgs, "--out", whole)...); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	if n := bytes.Count(read(t, whole), []byte("\n")); n != 2*3*3 {
		t.Fatalf("%d rows, want 18", n)
	}
	for _, sched := range []struct {
		name string
		env  func(i int) map[string]string
	}{
		{"kubernetes", func(i int) map[string]string {
			return map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i), "JOB_COMPLETIONS": "4"}
		}},
		{"slurm", func(i int) map[string]string {
			return map[string]string{"SLURM_ARRAY_TASK_ID": strconv.Itoa(i + 1), "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}
		}},
	} {
		t.Run(sched.name, func(t *testing.T) {
			var shards []string
			for i := range 4 {
				for k, v := range sched.env(i) {
					t.Setenv(k, v)
				}
				out := filepath.Join(dir, sched.name+strconv.Itoa(i)+".jsonl")
				if _, stderr, code := herd(t, append(sweepArgs, "--shard", "auto", "--workers", "1", "--out", out)...); code != 0 {
					t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
				}
				shards = append(shards, out)
			}
			merged := filepath.Join(dir, sched.name+".jsonl")
			if _, stderr, code := herd(t, append([]string{"merge", "--out", merged}, shards...)...); code != 0 {
				t.Fatalf("merge: exit %d: %s", code, stderr)
			}
			if !bytes.Equal(read(t, merged), read(t, whole)) {
				t.Fatal("merged shards differ from the unsharded sweep")
			}
			// Merge refuses a missing, a duplicated and a foreign shard with
			// exit status 1.
			foreign := filepath.Join(dir, sched.name+"-foreign.jsonl")
			args := append(append([]string{}, sweepArgs...), "--shard", "auto", "--out", foreign)
			args[len(sweepArgs)-1] = "6" // another seed
			if _, stderr, code := herd(t, args...); code != 0 {
				t.Fatalf("foreign shard: exit %d: %s", code, stderr)
			}
			for _, c := range []struct {
				files []string
				says  string
			}{
				{shards[:3], "missing"},
				{append(append([]string{}, shards...), shards[0]), "duplicated"},
				{append(append([]string{}, shards[:3]...), foreign), "foreign"},
			} {
				_, stderr, code := herd(t, append([]string{"merge"}, c.files...)...)
				if code != 1 || !strings.Contains(stderr, c.says) {
					t.Errorf("merge %v: exit %d, %q; want exit 1 saying %q", c.files, code, stderr, c.says)
				}
			}
		})
	}
}

// TestSweepResumeCLI cuts a finished sweep's file in the middle of a row,
// as a kill during a write would, and resumes it.
func TestSweepResumeCLI(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.jsonl")
	if _, stderr, code := herd(t, append(sweepArgs, "--out", whole)...); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	want := read(t, whole)
	cut := filepath.Join(dir, "cut.jsonl")
	os.WriteFile(cut, want[:len(want)/2], 0o644)
	if _, stderr, code := herd(t, append(sweepArgs, "--out", cut)...); code != 2 || !strings.Contains(stderr, "--resume") {
		t.Errorf("sweep over an existing file: exit %d, %q", code, stderr)
	}
	_, stderr, code := herd(t, append(sweepArgs, "--out", cut, "--resume", "--workers", "3")...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	kept := bytes.Count(want[:len(want)/2], []byte("\n"))
	if note := fmt.Sprintf(": %d of shard 0/1's", kept); !strings.Contains(stderr, note) {
		t.Errorf("resume's note %q lacks %q", stderr, note)
	}
	if !bytes.Equal(read(t, cut), want) {
		t.Fatal("resumed sweep differs from the uninterrupted one")
	}
	// Resuming with another spec is refused.
	if _, stderr, code := herd(t, append(sweepArgs, "--out", cut, "--resume", "--trials", "31")...); code != 1 || !strings.Contains(stderr, "another sweep") {
		t.Errorf("resume of another sweep: exit %d, %q", code, stderr)
	}
}

func TestSweepBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"sweep", "--cap", "64:8"}, "--cap"},
		{[]string{"sweep", "--policy", "full,nope"}, "--policy"},
		{[]string{"sweep", "--base", "64", "--cap", "8,128"}, "--skip-invalid"},
		{[]string{"sweep", "--shard", "4/4"}, "--shard"},
		{[]string{"sweep", "--resume"}, "--out"},
		{[]string{"sweep", "--engine", "fast"}, "--engine"},
		{[]string{"sweep", "--spec", "/nonexistent.yaml"}, "--spec"},
	} {
		_, stderr, code := herd(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %s", c.args, code, stderr, c.says)
		}
	}
}

func TestSimulateSaysWhichEngine(t *testing.T) {
	out, stderr, code := herd(t, "simulate", "-n", "1000000000", "-k", "10000000", "--trials", "3", "--format", "json")
	if code != 0 || !strings.Contains(out, `"engine": "counts"`) {
		t.Errorf("exit %d, %s %s", code, stderr, out)
	}
	out, _, code = herd(t, "simulate", "--policy", "decorrelated", "--trials", "3", "--format", "table", "--engine", "auto")
	if code != 0 || !strings.Contains(out, "engine: clients (auto: the count engine cannot play") {
		t.Errorf("exit %d, %s", code, out)
	}
	_, stderr, code = herd(t, "simulate", "-n", "1000000000", "--engine", "clients")
	if code != 2 || !strings.Contains(stderr, "at most 50000000 clients") || !strings.Contains(stderr, "--engine counts") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
