package outfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// A --force replace of a directory whose files the user cannot remove is
// refused before anything moves, and the directory keeps its files; a new
// file in it is refused up front. As
// root, where permissions do not bind, the test runs itself again as the
// user nobody.
func TestWriteDirKeepsADirectoryItCannotRemove(t *testing.T) {
	base := os.Getenv("OUTFILE_TEST_BASE")
	if base == "" && os.Geteuid() == 0 {
		base, err := os.MkdirTemp("", "outfile-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(base)
		if err := os.Chmod(base, 0o777); err != nil {
			t.Fatal(err)
		}
		// The test binary's own directory is root's alone: run a copy.
		bin, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		self := filepath.Join(base, "outfile.test")
		if err := os.WriteFile(self, bin, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(self, "-test.run", "^TestWriteDirKeepsADirectoryItCannotRemove$", "-test.v")
		cmd.Env = append(os.Environ(), "OUTFILE_TEST_BASE="+base)
		cmd.Dir = base
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("as nobody: %v\n%s", err, out)
		}
		return
	}
	if base == "" {
		base = t.TempDir()
	}
	dir := filepath.Join(base, "report")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine.md"), []byte("the user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	err := WriteDir(dir, map[string][]byte{"report.md": []byte("new")}, true)
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Errorf("WriteDir into a directory whose files cannot be removed: %v, want a refusal", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "mine.md")); err != nil || string(b) != "the user's" {
		t.Errorf("the user's file after the refused replace: %q, %v", b, err)
	}
	// A new file in a directory the user cannot write is refused before
	// a run, not after it.
	if err := Check(filepath.Join(dir, "new.json")); !errors.As(err, &re) {
		t.Errorf("Check of a new file in a read-only directory: %v, want a refusal", err)
	}
	if m, _ := filepath.Glob(filepath.Join(base, ".report.tmp-*")); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}
}
