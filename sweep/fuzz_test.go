package sweep

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzRows feeds merge and resume arbitrary files: they refuse or accept,
// never panic, and accept only rows whose integrity check holds.
func FuzzRows(f *testing.F) {
	spec, pts := smallSweep()
	f.Add([]byte(""))
	f.Add([]byte("{}\n"))
	f.Add(sealRow([]byte(`{"point":0,"points":9223372036854775807,"spec":"x"}`)))
	f.Add(sealRow([]byte(`{"point":0,"points":1,"spec":"` + spec.Hash(pts) + `"}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if out, err := Merge([]ShardFile{{"f", data}}); err == nil && len(out) > len(data) {
			t.Fatalf("merge made %d bytes of %d", len(out), len(data))
		}
		rows, size, err := ResumeFrom(data, spec.Hash(pts), len(pts), Shard{1, 3})
		if err == nil && (size > len(data) || rows > len(pts)) {
			t.Fatalf("resume: %d rows, %d of %d bytes", rows, size, len(data))
		}
	})
}

// FuzzGrid reads arbitrary grid text for a numeric and an enumerated
// field: an error or values, never a panic.
func FuzzGrid(f *testing.F) {
	for _, s := range []string{"16:2048:*2", "1:3", "0.5,1,4", "1:1e300:*1.0000001", "-5:5", "100ms:1s:100ms", "full,equal", ":", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, field := range []string{"cap", "clients", "tick", "policy", "capacity"} {
			_, _ = Grid{field: text}.axes()
		}
		_, _ = numbers(text)
	})
}

// FuzzSpecFile reads arbitrary spec files and expands the few that parse
// into small grids: an error or points, never a panic.
func FuzzSpecFile(f *testing.F) {
	f.Add([]byte("trials: 10\nseed: 1\ngrid:\n  clients: 10\n  policy: [full, equal]\n  cap: \"16:64:*2\"\n"))
	f.Add([]byte(`{"trials": 5, "grid": {"clients": "1:3"}}`))
	f.Add([]byte("grid:\n  nope: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "spec.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := ReadSweepSpec(path, SweepSpec{Grid: Grid{}, Trials: 1, Seed: 1})
		if err != nil || s.Validate() != nil {
			return
		}
		axes, err := s.Grid.axes()
		if err != nil {
			return
		}
		n := 1
		for _, a := range axes {
			n *= len(a.values)
			if n > 1000 {
				return
			}
		}
		_, _ = s.Points()
	})
}
