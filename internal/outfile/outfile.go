// Package outfile writes a command's result to the path a user named with
// --out, so that whatever stands at that path is treated as the user
// expects: a regular file is replaced atomically and keeps its mode, a
// symbolic link's target is what gets written, a device or FIFO is written
// directly, and a directory or a read-only file is refused before anything
// is written. A command that writes several files (herd compare) names a
// directory instead: WriteDir fills a new directory beside it and puts it
// in its place, refusing one that holds files unless forced.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// RefusedError is a path that Write will not write, with the reason; a
// command reports it as bad input.
type RefusedError struct {
	Path, Reason string
}

func (e *RefusedError) Error() string { return fmt.Sprintf("--out %s: %s", e.Path, e.Reason) }

// maxLinks bounds the symbolic links followed, as the kernel does.
const maxLinks = 40

// Target follows path's symbolic links (even a dangling last one) to the
// file that a write should reach.
func Target(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", &RefusedError{path, fmt.Sprintf("more than %d symbolic links", maxLinks)}
}

// Check says whether Write would accept path, without writing: a command
// checks before a long run so that a bad --out costs nothing.
func Check(path string) error {
	_, _, err := plan(path)
	return err
}

// plan finds the target and whether it is written in place (a device, a
// FIFO) rather than replaced.
func plan(path string) (target string, direct bool, err error) {
	// A device, FIFO or socket is written through path itself: the kernel
	// follows its links, which Target cannot when one of them names no
	// file (/dev/stdout is /proc/self/fd/1, a link to "pipe:[…]" when
	// standard output is a pipe).
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
		return path, true, nil
	}
	target, err = Target(path)
	if err != nil {
		return "", false, err
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(target)
		if di, err := os.Stat(dir); err != nil || !di.IsDir() {
			return "", false, &RefusedError{path, fmt.Sprintf("its directory %s does not exist", dir)}
		}
		if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
			return "", false, &RefusedError{path, fmt.Sprintf("its directory %s is not writable (%v)", dir, err)}
		}
		return target, false, nil
	case err != nil:
		return "", false, err
	case fi.IsDir():
		return "", false, &RefusedError{path, "is a directory; name a file"}
	case fi.Mode().IsRegular():
		if fi.Mode().Perm()&0o222 == 0 {
			return "", false, &RefusedError{path, fmt.Sprintf("is read-only (mode %v); make it writable or name another file", fi.Mode().Perm())}
		}
		return target, false, nil
	}
	return target, true, nil // a device, a FIFO or a socket: written as it stands
}

// openDirect opens a device or FIFO for writing. A FIFO is opened without
// blocking: with no reader an open would wait for ever, deaf to Ctrl-C
// (the command is stuck in the system call), so a reader gets fifoGrace
// to appear and the FIFO is refused after it.
func openDirect(path, target string) (*os.File, error) {
	fi, err := os.Stat(target)
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return os.OpenFile(target, os.O_WRONLY, 0)
	}
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		f, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if !errors.Is(err, syscall.ENXIO) {
			return f, err
		}
		if time.Since(start) > fifoGrace {
			return nil, &RefusedError{path, fmt.Sprintf("is a FIFO that no process opened for reading within %v; start its reader first", fifoGrace)}
		}
	}
}

// fifoGrace is how long Write waits for a FIFO's reader: within the
// second that Ctrl-C is promised to take.
const fifoGrace = 500 * time.Millisecond

// Write writes data to path as the package doc says. A regular file (new
// or replaced) is written to a temporary file in the same directory and
// renamed over it, so a reader sees the old bytes or the new, never half;
// a replaced file keeps its mode, a new one is 0644.
func Write(path string, data []byte) error {
	target, direct, err := plan(path)
	if err != nil {
		return err
	}
	if direct {
		f, err := openDirect(path, target)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file private (0600); a result keeps the mode of
	// the file it replaces, or is an ordinary file that others may read.
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}
