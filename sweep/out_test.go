package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
)

func TestOpenOutRefusesWhatItCannotResume(t *testing.T) {
	dir := t.TempDir()
	held := filepath.Join(dir, "rows.jsonl")
	if err := os.WriteFile(held, []byte(`{"point":0}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, says string
	}{
		{"a directory", dir, "is not a regular file"},
		{"rows without --resume", held, "already holds rows; pass --resume"},
	} {
		f, _, err := OpenOut(c.path, false, "hash", 4, Shard{})
		var ue *model.UsageError
		if f != nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: OpenOut = %v, %v; want a usage error saying %q", c.name, f, err, c.says)
		}
	}
	if b, _ := os.ReadFile(held); string(b) != `{"point":0}`+"\n" {
		t.Errorf("a refused --out was changed: %q", b)
	}
}

func TestOpenOutStartsANewFile(t *testing.T) {
	if f, done, err := OpenOut("", false, "hash", 4, Shard{}); f != nil || done != 0 || err != nil {
		t.Errorf("no path: OpenOut = %v, %d, %v; want standard output (nil, 0, nil)", f, done, err)
	}
	path := filepath.Join(t.TempDir(), "new.jsonl")
	f, done, err := OpenOut(path, true, "hash", 4, Shard{})
	if err != nil || f == nil || done != 0 {
		t.Fatalf("new file: OpenOut = %v, %d, %v; want an open file with nothing done", f, done, err)
	}
	defer f.Close()
	if _, err := f.WriteString("row\n"); err != nil {
		t.Fatal(err)
	}
}

func TestOpenOutRefusesASecondSweepAndAReadOnlyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	f, _, err := OpenOut(path, false, "hash", 4, Shard{})
	if err != nil {
		t.Fatal(err)
	}
	if g, _, err := OpenOut(path, true, "hash", 4, Shard{}); g != nil || err == nil || !strings.Contains(err.Error(), "another herd sweep is writing it") {
		t.Errorf("a second sweep on the same --out: %v, %v; want it refused", g, err)
	}
	f.Close()
	ro := filepath.Join(t.TempDir(), "ro.jsonl")
	if err := os.WriteFile(ro, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	var ue *model.UsageError
	if g, _, err := OpenOut(ro, false, "hash", 4, Shard{}); g != nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a read-only --out: %v, %v; want a usage error saying read-only", g, err)
	}
}
