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
		// As the tests' herd is: the fixed test build.
		os.Exit(runWith(&factory{IO: systemStreams(), Getenv: os.Getenv, Build: testBuild}, os.Args[1:]))
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
		t.Skip("bash is not installed")
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

// manifests reads every document of the YAML files under deploy/kubernetes.
func manifests(t *testing.T, names ...string) []map[string]any {
	t.Helper()
	var docs []map[string]any
	for _, name := range names {
		f, err := os.Open(filepath.Join("../../deploy/kubernetes", name))
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(f)
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			docs = append(docs, doc)
		}
		f.Close()
	}
	return docs
}

// TestKubernetesJobsRun checks the manifests offline (no cluster or schema
// validator is installable here: kubectl's dry run needs an API server) and
// then runs them: every document has a known apiVersion and kind; the Jobs'
// volumes name the ConfigMap and the claim; their command is where the
// Dockerfile puts herd; and the sweep Job's args, expanded as Kubernetes
// does for each completion index, followed by the merge Job's args, with
// the mounts as temporary folders (and --trials 3 to be quick), give the
// unsharded sweep's bytes. A misspelt flag, a wrong environment variable
// for --shard auto or a shard missing from the merge fails here.
func TestKubernetesJobsRun(t *testing.T) {
	kinds := map[string]string{"ConfigMap": "v1", "PersistentVolumeClaim": "v1", "Job": "batch/v1"}
	jobs := map[string]map[string]any{}
	names := map[string]string{} // kind → metadata.name
	var config map[string]any
	for _, doc := range manifests(t, "sweep-job.yaml", "merge-job.yaml") {
		kind, _ := doc["kind"].(string)
		if api, ok := kinds[kind]; !ok || doc["apiVersion"] != api {
			t.Errorf("document kind %q apiVersion %v: want one of %v", kind, doc["apiVersion"], kinds)
			continue
		}
		name, _ := doc["metadata"].(map[string]any)["name"].(string)
		if name == "" {
			t.Errorf("a %s without metadata.name", kind)
		}
		switch kind {
		case "Job":
			jobs[name] = doc
		case "ConfigMap":
			config = doc
		}
		if kind != "Job" {
			names[kind] = name
		}
	}
	sweep, merge := jobs["herd-sweep"], jobs["herd-merge"]
	if sweep == nil || merge == nil || config == nil {
		t.Fatalf("want Jobs herd-sweep and herd-merge and a ConfigMap, got jobs %v", jobs)
	}
	dockerfile, err := os.ReadFile("../../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// containerOf returns a Job's container, with its mount paths mapped to
	// folders of dir (the ConfigMap's files written into its own).
	type container struct {
		args   []string
		env    map[string]string
		mounts map[string]string // mountPath → folder
	}
	containerOf := func(job map[string]any) container {
		pod := job["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		if pod["restartPolicy"] != "Never" && pod["restartPolicy"] != "OnFailure" {
			t.Errorf("a Job's pods need restartPolicy Never or OnFailure, got %v", pod["restartPolicy"])
		}
		volumes := map[string]map[string]any{}
		for _, v := range pod["volumes"].([]any) {
			v := v.(map[string]any)
			volumes[v["name"].(string)] = v
		}
		ctr := pod["containers"].([]any)[0].(map[string]any)
		if ctr["image"] != "herd:latest" {
			t.Errorf("image %v, want the herd:latest that deploy/README.md builds", ctr["image"])
		}
		cmd := ctr["command"].([]any)
		if len(cmd) != 1 || !bytes.Contains(dockerfile, []byte("COPY --from=build /herd "+cmd[0].(string)+"\n")) {
			t.Errorf("command %v is not where deploy/Dockerfile puts herd", cmd)
		}
		c := container{env: map[string]string{}, mounts: map[string]string{}}
		envs, _ := ctr["env"].([]any) // the merge Job has none
		for _, e := range envs {
			e := e.(map[string]any)
			if v, ok := e["value"].(string); ok {
				c.env[e["name"].(string)] = v
			}
		}
		for _, m := range ctr["volumeMounts"].([]any) {
			m := m.(map[string]any)
			v := volumes[m["name"].(string)]
			folder := filepath.Join(dir, m["name"].(string))
			os.MkdirAll(folder, 0o755)
			switch {
			case v["configMap"] != nil:
				if got := v["configMap"].(map[string]any)["name"]; got != names["ConfigMap"] {
					t.Errorf("volume %v names ConfigMap %v, the manifest defines %q", m["name"], got, names["ConfigMap"])
				}
				for file, body := range config["data"].(map[string]any) {
					os.WriteFile(filepath.Join(folder, file), []byte(body.(string)), 0o644)
				}
			case v["persistentVolumeClaim"] != nil:
				if got := v["persistentVolumeClaim"].(map[string]any)["claimName"]; got != names["PersistentVolumeClaim"] {
					t.Errorf("volume %v claims %v, the manifest defines %q", m["name"], got, names["PersistentVolumeClaim"])
				}
			default:
				t.Errorf("volume %v is neither the ConfigMap nor the claim", m["name"])
			}
			c.mounts[m["mountPath"].(string)] = folder
		}
		for _, a := range ctr["args"].([]any) {
			c.args = append(c.args, a.(string))
		}
		return c
	}
	// expand does what Kubernetes does to args ($(VAR) from the env), then
	// moves paths under a mount to its folder.
	expand := func(c container, env map[string]string) []string {
		var out []string
		for _, a := range c.args {
			for k, v := range env {
				a = strings.ReplaceAll(a, "$("+k+")", v)
			}
			for mount, folder := range c.mounts {
				a = strings.ReplaceAll(a, mount+"/", folder+"/")
			}
			out = append(out, a)
		}
		return out
	}
	sc, mc := containerOf(sweep), containerOf(merge)
	// Only what the manifest sets reaches --shard auto.
	for _, k := range []string{"JOB_COMPLETION_INDEX", "JOB_COMPLETIONS", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP"} {
		t.Setenv(k, "")
	}
	n := sweep["spec"].(map[string]any)["completions"].(int)
	for i := 0; i < n; i++ {
		env := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i)} // set by Kubernetes
		for k, v := range sc.env {
			env[k] = v
			t.Setenv(k, v)
		}
		t.Setenv("JOB_COMPLETION_INDEX", env["JOB_COMPLETION_INDEX"])
		args := append(expand(sc, env), "--trials", "3")
		if _, stderr, code := herd(t, args...); code != 0 {
			t.Fatalf("sweep Job, index %d: herd %v: exit %d: %s", i, args, code, stderr)
		}
	}
	args := expand(mc, nil)
	if _, stderr, code := herd(t, args...); code != 0 {
		t.Fatalf("merge Job: herd %v: exit %d: %s", args, code, stderr)
	}
	flag := func(args []string, name string) string {
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, name+"="); ok {
				return v
			}
		}
		t.Fatalf("args %v lack %s=", args, name)
		return ""
	}
	spec, out := flag(expand(sc, nil), "--spec"), flag(args, "--out")
	whole := filepath.Join(dir, "whole.jsonl")
	if _, stderr, code := herd(t, "sweep", "--spec", spec, "--trials", "3", "--out", whole); code != 0 {
		t.Fatal(stderr)
	}
	if !bytes.Equal(read(t, out), read(t, whole)) {
		t.Error("the Jobs' merged output differs from the unsharded sweep")
	}
}
