package outfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()

	// A new file is 0644; a replaced one keeps its mode.
	p := filepath.Join(dir, "new.json")
	if err := Write(p, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 || read(t, p) != "a" {
		t.Fatalf("new file: mode %v, %q", fi.Mode().Perm(), read(t, p))
	}
	os.Chmod(p, 0o640)
	if err := Write(p, []byte("b")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 || read(t, p) != "b" {
		t.Fatalf("replaced file: mode %v, %q; want 0640, b", fi.Mode().Perm(), read(t, p))
	}

	// A symbolic link stays a link and its target gets the bytes, also
	// through a relative and a dangling link.
	target := filepath.Join(dir, "target.json")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.json")
	os.Symlink("target.json", link)
	if err := Write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 || read(t, target) != "new" {
		t.Fatalf("through a link: link mode %v, target %q", fi.Mode(), read(t, target))
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Fatalf("the link's target lost its mode: %v", fi.Mode().Perm())
	}
	dangling := filepath.Join(dir, "dangling.json")
	os.Symlink("made.json", dangling)
	if err := Write(dangling, []byte("x")); err != nil || read(t, filepath.Join(dir, "made.json")) != "x" {
		t.Fatalf("dangling link: %v", err)
	}

	// A FIFO is written as it stands, not replaced by a file.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := Write(fifo, []byte("through")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through" {
		t.Fatalf("FIFO read %q", s)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}

	// A FIFO no process reads is refused within a second, not waited on
	// for ever (deaf to Ctrl-C).
	start := time.Now()
	var re *RefusedError
	if err := Write(fifo, []byte("nobody")); !errors.As(err, &re) || time.Since(start) > 5*time.Second {
		t.Fatalf("a FIFO without a reader: %v after %v; want a RefusedError at once", err, time.Since(start))
	}

	// A character device is written in place (/dev/null stays a device).
	if err := Write("/dev/null", []byte("gone")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat("/dev/null"); fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatal("/dev/null is no longer a character device")
	}

	// A pipe reached through /proc's link to it (/dev/stdout when standard
	// output is a pipe) is written as it stands, though the link's text
	// ("pipe:[…]") names no file.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	viaProc := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	if err := Write(viaProc, []byte("piped")); err != nil {
		t.Fatalf("%s: %v", viaProc, err)
	}
	w.Close()
	if s := <-got; s != "piped" {
		t.Fatalf("pipe read %q", s)
	}

	// A directory, a read-only file and a missing directory are refused,
	// and the read-only file is left as it was.
	ro := filepath.Join(dir, "ro.json")
	os.WriteFile(ro, []byte("keep"), 0o444)
	for _, bad := range []string{dir, ro, filepath.Join(dir, "no", "such.json")} {
		var re *RefusedError
		if err := Write(bad, []byte("z")); !errors.As(err, &re) {
			t.Errorf("%s: %v; want a RefusedError", bad, err)
		}
	}
	if fi, _ := os.Stat(ro); read(t, ro) != "keep" || fi.Mode().Perm() != 0o444 {
		t.Errorf("read-only file changed: %q, %v", read(t, ro), fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// WriteDir makes a new directory, refuses a non-empty one without force,
// replaces it with force, and leaves nothing beside it.
func TestWriteDir(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	if err := WriteDir(dir, map[string][]byte{"a.md": []byte("a"), "b.json": []byte("{}")}, false); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.md")); err != nil || string(b) != "a" {
		t.Fatalf("a.md: %q %v", b, err)
	}
	var re *RefusedError
	if err := WriteDir(dir, map[string][]byte{"c": nil}, false); !errors.As(err, &re) {
		t.Fatalf("a non-empty directory without force: %v", err)
	}
	if err := WriteDir(dir, map[string][]byte{"c": []byte("c")}, true); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "c" {
		t.Errorf("after --force the directory holds %v", entries)
	}
	if all, _ := os.ReadDir(parent); len(all) != 1 {
		t.Errorf("left beside the directory: %v", all)
	}
	file := filepath.Join(parent, "f")
	os.WriteFile(file, nil, 0o644)
	if err := CheckDir(file, true); !errors.As(err, &re) {
		t.Errorf("a file as the directory: %v", err)
	}
	if err := CheckDir(filepath.Join(parent, "no", "such"), false); !errors.As(err, &re) {
		t.Errorf("a missing parent: %v", err)
	}
	empty := filepath.Join(parent, "empty")
	os.Mkdir(empty, 0o755)
	if err := WriteDir(empty, map[string][]byte{"x": nil}, false); err != nil {
		t.Errorf("an empty directory: %v", err)
	}
}
