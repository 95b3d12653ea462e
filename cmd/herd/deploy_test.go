package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/herdlab/herd/sweep"
	"gopkg.in/yaml.v3"
)

// TestMain lets the test binary stand in for herd when a script under test
// runs it: HERD_TEST_AS_HERD=1 makes it the command line.
func TestMain(m *testing.M) {
	if os.Getenv("HERD_TEST_AS_HERD") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func specOf(t *testing.T, path string) string {
	t.Helper()
	s, err := sweep.ReadSweepSpec(path, sweep.SweepSpec{Trials: 1000, Seed: 1, Grid: sweep.Grid{}})
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Points()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 200 {
		t.Errorf("%s: %d points, want the 5 × 5 × 8 of the acceptance sweep", path, len(pts))
	}
	return s.Hash(pts)
}

// TestKubernetesManifest checks what makes the Indexed Job work with
// --shard auto: Indexed completion, JOB_COMPLETIONS equal to completions,
// a per-index output file, and the same spec as deploy/sweep.yaml.
func TestKubernetesManifest(t *testing.T) {
	f, err := os.Open("../../deploy/kubernetes/sweep-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	var job, config map[string]any
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		switch doc["kind"] {
		case "Job":
			job = doc
		case "ConfigMap":
			config = doc
		}
	}
	if job == nil || config == nil {
		t.Fatal("the manifest needs a Job and a ConfigMap")
	}
	spec := job["spec"].(map[string]any)
	if spec["completionMode"] != "Indexed" {
		t.Errorf("completionMode %v", spec["completionMode"])
	}
	ctr := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	var completions string
	for _, e := range ctr["env"].([]any) {
		if e.(map[string]any)["name"] == "JOB_COMPLETIONS" {
			completions = e.(map[string]any)["value"].(string)
		}
	}
	if completions != strconv.Itoa(spec["completions"].(int)) {
		t.Errorf("JOB_COMPLETIONS %q but completions %v", completions, spec["completions"])
	}
	args := ctr["args"].([]any)
	joined := ""
	for _, a := range args {
		joined += a.(string) + " "
	}
	for _, want := range []string{"sweep", "--shard=auto", "--resume", "--out=/results/shard-$(JOB_COMPLETION_INDEX).jsonl"} {
		if !strings.Contains(joined, want) {
			t.Errorf("args %q lack %q", joined, want)
		}
	}
	dir := t.TempDir()
	inline := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(inline, []byte(config["data"].(map[string]any)["sweep.yaml"].(string)), 0o644)
	if specOf(t, inline) != specOf(t, "../../deploy/sweep.yaml") {
		t.Error("the ConfigMap's spec differs from deploy/sweep.yaml")
	}
}

// TestSlurmScripts runs deploy/slurm's array script as four array tasks
// (1…4, as --array=1-4 would number them) and its merge script, with this
// test binary as herd, and compares the result with an unsharded sweep.
func TestSlurmScripts(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script, _ := filepath.Abs("../../deploy/slurm/sweep.sbatch")
	merge, _ := filepath.Abs("../../deploy/slurm/merge.sbatch")
	body, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(body, []byte("#SBATCH --array=0-3")) || !bytes.Contains(body, []byte("--shard auto")) {
		t.Error("sweep.sbatch must declare the array and use --shard auto")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "small.yaml")
	os.WriteFile(spec, []byte("trials: 20\nseed: 3\ngrid:\n  clients: 50\n  capacity: 5\n  policy: [full, expo, decorrelated]\n  cap: [8, 32]\n"), 0o644)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bash := func(path string, env ...string) {
		t.Helper()
		cmd := exec.Command("bash", path)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append(env, "HERD="+self, "HERD_TEST_AS_HERD=1", "SPEC="+spec)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(path), env, err, out)
		}
	}
	for id := 1; id <= 4; id++ {
		bash(script, "SLURM_ARRAY_TASK_ID="+strconv.Itoa(id), "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_MIN=1", "SLURM_CPUS_PER_TASK=1")
	}
	bash(merge)
	whole := filepath.Join(dir, "whole.jsonl")
	if _, stderr, code := herd(t, "sweep", "--spec", spec, "--out", whole); code != 0 {
		t.Fatal(stderr)
	}
	if !bytes.Equal(read(t, filepath.Join(dir, "results", "sweep.jsonl")), read(t, whole)) {
		t.Error("the Slurm scripts' merged output differs from the unsharded sweep")
	}
}
