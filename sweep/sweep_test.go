package sweep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
)

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		text string
		want []float64
	}{
		{"16:2048:*2", []float64{16, 32, 64, 128, 256, 512, 1024, 2048}},
		{"1:3", []float64{1, 2, 3}},
		{"0.5,1, 4", []float64{0.5, 1, 4}},
		{"0.1:0.3:0.1", []float64{0.1, 0.2, 0.30000000000000004}},
		{"100:1000:300,5", []float64{100, 400, 700, 1000, 5}},
	} {
		got, err := numbers(c.text)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("numbers(%q) = %v, %v; want %v", c.text, got, err, c.want)
		}
	}
	for _, bad := range []string{"5:1", "1:2:0", "1:2:*1", "a", "1,,2", "1:2:3:4", "0:1e9"} {
		if got, err := numbers(bad); err == nil {
			t.Errorf("numbers(%q) = %v, want an error", bad, got)
		}
	}
}

func TestPoints(t *testing.T) {
	spec := SweepSpec{Grid: Grid{"policy": "full,expo", "cap": "8:32:*2", "clients": "10,20"}, Trials: 10, Seed: 1}
	pts, err := spec.Points()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 12 {
		t.Fatalf("%d points, want 2·2·3", len(pts))
	}
	// clients varies slowest, then policy, then cap.
	if pts[0].Clients != 10 || pts[0].Policy.Kind != policy.Full || pts[0].Policy.Cap != 8 ||
		pts[1].Policy.Cap != 16 || pts[3].Policy.Kind != policy.Expo || pts[6].Clients != 20 {
		t.Errorf("grid order: %+v", pts[:4])
	}
	spec.Grid["base"] = "4,16"
	if _, err := spec.Points(); err == nil || !strings.Contains(err.Error(), "--cap") {
		t.Errorf("cap below base: %v", err)
	}
	spec.SkipInvalid = true
	if pts, err := spec.Points(); err != nil || len(pts) != 2*2*3+2*2*2 {
		t.Errorf("skip invalid: %d points, %v", len(pts), err)
	}
	lim, err := (SweepSpec{Grid: Grid{"policy": "full,grpc-retry", "retries": "2,5", "tick": "100ms", "max-elapsed": "10s:30s:10s"}}).Points()
	if err != nil || len(lim) != 2*2*3 {
		t.Fatalf("limits: %d points, %v", len(lim), err)
	}
	if p := lim[0].Policy; p.Retries != 2 || p.Tick != 100*time.Millisecond || p.MaxElapsed != 10*time.Second {
		t.Errorf("limits applied as %+v", p)
	}
	pre, err := (SweepSpec{Grid: Grid{"policy": "grpc-retry"}}).Points()
	if ps, _ := policy.LookupPreset("grpc-retry"); err != nil || pre[0].Policy.Retries != ps.Retries {
		t.Errorf("a preset without --retries keeps its own limit: %+v, %v", pre, err)
	}
	var ge *GridError
	if _, err := (SweepSpec{Grid: Grid{"policy": "full,bogus"}}).Points(); !errors.As(err, &ge) || ge.Flag != "policy" {
		t.Errorf("bad policy: %v", err)
	}
}

func TestParseShard(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	none := env(nil)
	for _, c := range []struct {
		text string
		env  map[string]string
		want Shard
	}{
		{"", nil, Whole},
		{"2/4", nil, Shard{2, 4}},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "3", "JOB_COMPLETIONS": "4"}, Shard{3, 4}},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, Shard{2, 4}},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}, Shard{3, 4}},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "10", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "5"}, Shard{2, 3}},
	} {
		got, err := ParseShard(c.text, env(c.env))
		if err != nil || got != c.want {
			t.Errorf("ParseShard(%q, %v) = %v, %v; want %v", c.text, c.env, got, err, c.want)
		}
	}
	for _, c := range []struct {
		text string
		env  map[string]string
		says string
	}{
		{"4/4", nil, "0 ≤ i < n"},
		{"1/0", nil, "n ≥ 1"},
		{"x", nil, "i/n"},
		{"auto", nil, "neither"},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "1"}, "JOB_COMPLETIONS"},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "4", "JOB_COMPLETIONS": "4"}, "outside"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, "SLURM_ARRAY_TASK_COUNT"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"}, "not an integer"},
	} {
		e := none
		if c.env != nil {
			e = env(c.env)
		}
		if _, err := ParseShard(c.text, e); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParseShard(%q, %v) = %v, want an error saying %q", c.text, c.env, err, c.says)
		}
	}
}

func smallSweep() (SweepSpec, []model.Scenario) {
	spec := SweepSpec{Grid: Grid{"clients": "30,60", "capacity": "5", "policy": "expo,full,decorrelated", "cap": "8,32"}, Trials: 40, Seed: 7}
	pts, err := spec.Points()
	if err != nil {
		panic(err)
	}
	return spec, pts
}

func sweepBytes(t *testing.T, ctx context.Context, spec SweepSpec, pts []model.Scenario, opt SweepOptions) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	err := RunSweep(ctx, spec, pts, opt, func(row []byte) error {
		if !bytes.HasSuffix(row, []byte("\n")) || bytes.Count(row, []byte("\n")) != 1 {
			t.Fatalf("row is not one line: %q", row)
		}
		buf.Write(row)
		return nil
	})
	return buf.Bytes(), err
}

// TestSweepShardsMergeToTheWhole runs a sweep whole with one and three
// workers and in three shards, and requires the merged shards and both
// whole runs to be the same bytes.
func TestSweepShardsMergeToTheWhole(t *testing.T) {
	spec, pts := smallSweep()
	ctx := context.Background()
	one, err := sweepBytes(t, ctx, spec, pts, SweepOptions{Shard: Whole, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	three, err := sweepBytes(t, ctx, spec, pts, SweepOptions{Shard: Whole, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(one, three) {
		t.Fatal("1 and 3 workers wrote different rows")
	}
	if n := bytes.Count(one, []byte("\n")); n != len(pts) {
		t.Fatalf("%d rows for %d points", n, len(pts))
	}
	var files []ShardFile
	for i := range 3 {
		b, err := sweepBytes(t, ctx, spec, pts, SweepOptions{Shard: Shard{i, 3}, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, ShardFile{Name: "shard" + string(rune('0'+i)), Data: b})
	}
	merged, err := Merge([]ShardFile{files[2], files[0], files[1]})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(merged, one) {
		t.Fatal("merged shards differ from the unsharded sweep")
	}

	// Each way a merge can go wrong is refused, naming the problem.
	other := spec
	other.Seed++
	foreign, err := sweepBytes(t, ctx, other, pts, SweepOptions{Shard: Shard{1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		files []ShardFile
		says  string
	}{
		{[]ShardFile{files[0], files[1]}, "missing"},
		{[]ShardFile{files[0], files[1], files[2], files[1]}, "duplicated"},
		{[]ShardFile{files[0], {Name: "foreign", Data: foreign}, files[2]}, "foreign"},
		{[]ShardFile{files[0], {Name: "cut", Data: files[1].Data[:len(files[1].Data)-10]}, files[2]}, "cut off"},
		{[]ShardFile{{Name: "junk", Data: []byte("{}\n")}}, "junk: line 1: the row has no integrity check"},
		{[]ShardFile{{Name: "sealed", Data: sealRow([]byte(`{"x":1}`))}}, "not a sweep row"},
	} {
		if _, err := Merge(c.files); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("merge: %v, want an error saying %q", err, c.says)
		}
	}
}

// TestSweepResume interrupts a shard after some rows, cuts its file
// mid-row as a kill would, resumes, and requires the bytes of an
// uninterrupted run.
func TestSweepResume(t *testing.T) {
	spec, pts := smallSweep()
	sh := Shard{1, 2}
	want, err := sweepBytes(t, context.Background(), spec, pts, SweepOptions{Shard: sh})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var part bytes.Buffer
	rows := 0
	err = RunSweep(ctx, spec, pts, SweepOptions{Shard: sh, Workers: 2}, func(row []byte) error {
		part.Write(row)
		if rows++; rows == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted sweep returned %v", err)
	}
	if rows != 3 || !bytes.Equal(part.Bytes(), want[:part.Len()]) {
		t.Fatalf("interrupted sweep wrote %d rows, not a prefix of 3 whole rows", rows)
	}
	data := append(part.Bytes(), want[part.Len():part.Len()+25]...) // half a row
	hash := spec.Hash(pts)
	done, size, err := ResumeFrom(data, hash, len(pts), sh)
	if err != nil || done != 3 || size != part.Len() {
		t.Fatalf("ResumeFrom = %d rows, %d bytes, %v; want 3, %d", done, size, err, part.Len())
	}
	rest, err := sweepBytes(t, context.Background(), spec, pts, SweepOptions{Shard: sh, Done: done})
	if err != nil {
		t.Fatal(err)
	}
	if got := append(data[:size:size], rest...); !bytes.Equal(got, want) {
		t.Fatal("resumed sweep differs from the uninterrupted one")
	}
	if _, _, err := ResumeFrom(want, hash, len(pts), Shard{0, 2}); err == nil {
		t.Error("resume accepted another shard's rows")
	}
	if _, _, err := ResumeFrom(want, "0123456789abcdef", len(pts), sh); err == nil || !strings.Contains(err.Error(), "another sweep") {
		t.Errorf("resume of another sweep: %v", err)
	}
}

func TestReadSweepSpec(t *testing.T) {
	dir := t.TempDir()
	yml := filepath.Join(dir, "s.yaml")
	os.WriteFile(yml, []byte("trials: 50\nseed: 3\ngrid:\n  clients: 1000\n  policy: [none, full]\n  cap: \"16:64:*2\"\n  base: [0.5, 1]\n"), 0o644)
	js := filepath.Join(dir, "s.json")
	os.WriteFile(js, []byte(`{"trials": 50, "seed": 3, "grid": {"clients": 1000, "policy": ["none", "full"], "cap": "16:64:*2", "base": [0.5, 1]}}`), 0o644)
	base := SweepSpec{Trials: 1000, Seed: 1, Grid: Grid{}}
	a, err := ReadSweepSpec(yml, base)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadSweepSpec(js, base)
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := a.Points()
	pb, _ := b.Points()
	if a.Trials != 50 || a.Seed != 3 || len(pa) != 2*3*2 || a.Hash(pa) != b.Hash(pb) {
		t.Errorf("YAML %+v (%d points) and JSON %+v (%d points) differ", a, len(pa), b, len(pb))
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("grid:\n  clientz: 5\n"), 0o644)
	if _, err := ReadSweepSpec(bad, base); err == nil || !strings.Contains(err.Error(), "clientz") {
		t.Errorf("unknown field: %v", err)
	}
	os.WriteFile(bad, []byte("trails: 5\n"), 0o644)
	if _, err := ReadSweepSpec(bad, base); err == nil || !strings.Contains(err.Error(), "trails is not a field of a spec file") {
		t.Errorf("unknown key: %v", err)
	}
	// Refusals of a spec's shape name its fields, never the Go types it is
	// read into.
	for _, text := range []string{"grid: 3\n", "[1]\n", "engine: [x]\n", "skip_invalid: 3\n", "sed: 1\n"} {
		os.WriteFile(bad, []byte(text), 0o644)
		_, err := ReadSweepSpec(bad, base)
		if err == nil || strings.Contains(err.Error(), "sweep.") || strings.Contains(err.Error(), "yaml.Node") || strings.Contains(err.Error(), "*") {
			t.Errorf("%q: %v, want a refusal in the spec's words", text, err)
		}
	}
}

// A spec's trials are held to the bound of a single run, and its engine
// must be one herd knows; RunSweep refuses a spec that fails.
func TestSweepSpecValidate(t *testing.T) {
	ok := SweepSpec{Grid: Grid{"clients": "10"}, Trials: 10, Seed: 1}
	if err := ok.Validate(); err != nil {
		t.Fatalf("a good spec: %v", err)
	}
	for _, bad := range []SweepSpec{
		{Trials: 0}, {Trials: montecarlo.MaxTrials + 1}, {Trials: 10, Engine: "warp"},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	pts, err := ok.Points()
	if err != nil {
		t.Fatal(err)
	}
	// Refused before any point runs (a point's own error names the point).
	ok.Trials = 0
	if err := RunSweep(context.Background(), ok, pts, SweepOptions{Shard: Whole}, func([]byte) error { return nil }); err == nil || strings.HasPrefix(err.Error(), "point") {
		t.Errorf("RunSweep with 0 trials: %v", err)
	}
}

func TestOverrideKeepsWhatTheCommandLineDidNotGive(t *testing.T) {
	s := SweepSpec{Trials: 10, Seed: 3, SkipInvalid: true}
	s.Override(SweepSpec{Trials: 99, Seed: 1, SkipInvalid: false}, func(f string) bool { return f == "trials" })
	if s.Trials != 99 || s.Seed != 3 || !s.SkipInvalid {
		t.Errorf("--trials 99 over a file with trials 10, seed 3, skip-invalid: %+v; want trials 99, seed 3, skip-invalid kept", s)
	}
}
