package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// CheckDir says whether WriteDir would accept dir, without writing: a
// path that does not exist yet (in a directory that does), an empty
// directory, or — with force — a directory holding files. Anything else
// (a file, a non-empty directory without force) is refused.
func CheckDir(dir string, force bool) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		parent := filepath.Dir(dir)
		if pi, err := os.Stat(parent); err != nil || !pi.IsDir() {
			return &RefusedError{dir, fmt.Sprintf("its parent directory %s does not exist", parent)}
		}
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return &RefusedError{dir, "is not a directory; name a new or empty directory"}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 && !force {
		return &RefusedError{dir, fmt.Sprintf("is not empty (%d entries); name a new or empty directory, or give --force to replace it", len(entries))}
	}
	// It will be moved aside and removed: both need the parent and every
	// directory inside to be writable, or the old files could not be
	// removed and the user's directory would be left moved.
	if err := unix.Access(filepath.Dir(filepath.Clean(dir)), unix.W_OK|unix.X_OK); err != nil {
		return &RefusedError{dir, fmt.Sprintf("cannot be replaced: its parent directory is not writable (%v)", err)}
	}
	if len(entries) > 0 {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if err := unix.Access(path, unix.W_OK|unix.X_OK); err != nil {
					return &RefusedError{dir, fmt.Sprintf("cannot be replaced: %s is not writable, so its files could not be removed (%v)", path, err)}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteDir makes dir hold exactly files (name → contents, names without a
// directory part), atomically: the files are written into a new directory
// beside dir, which then takes dir's place, so a failed run leaves dir as
// it was. A directory that stood at dir (CheckDir's rules) is replaced.
func WriteDir(dir string, files map[string][]byte, force bool) error {
	if err := CheckDir(dir, force); err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // gone after the rename, or a failed run's
	names := make([]string, 0, len(files))
	for name := range files {
		if filepath.Base(name) != name || name == "." || name == ".." {
			return fmt.Errorf("file name %q has a directory part", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(tmp, name), files[name], 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it 0700
		return err
	}
	old := ""
	if _, err := os.Stat(dir); err == nil {
		// Move the old directory aside first: rename cannot replace a
		// non-empty directory, and dir must never be left missing files.
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			// The old files cannot all go: put them back where they
			// were, and the new ones aside, rather than leave the
			// user's directory moved.
			if e := os.Rename(dir, tmp); e == nil {
				if e := os.Rename(old, dir); e != nil {
					return fmt.Errorf("replacing %s: %v; then putting it back: %v; its files are in %s", dir, err, e, old)
				}
			}
			return fmt.Errorf("replacing %s: the old files could not all be removed (%w); what remains of them is back at %s", dir, err, dir)
		}
	}
	return nil
}

// MakeDir makes dir and its missing parents for a command that writes its
// files into it, refusing an empty path, a path that is not a directory
// and one under a file or where the user may not create it.
func MakeDir(dir string) error {
	if dir == "" {
		return &RefusedError{dir, "names no directory; name the directory to write into"}
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return &RefusedError{dir, "is not a directory; name a directory to write into"}
	}
	err := os.MkdirAll(dir, 0o755)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EROFS) {
		return &RefusedError{dir, fmt.Sprintf("cannot be made: %v", errors.Unwrap(err))}
	}
	return err
}
