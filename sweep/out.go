package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/herdlab/herd/internal/infile"
	"github.com/herdlab/herd/internal/outfile"
	"github.com/herdlab/herd/model"
	"golang.org/x/sys/unix"
)

// OpenOut opens a sweep's --out for appending rows and says how many
// points are done. Resuming, it keeps the whole rows of this sweep's shard
// already there and cuts off a half-written last one; otherwise it refuses
// a file that holds rows, which a resume would need. No path is standard
// output: a nil file. The file stays locked while it is open, so that a
// second sweep on it is refused.
func OpenOut(path string, resume bool, hash string, total int, shard Shard) (*os.File, int, error) {
	if path == "" {
		return nil, 0, nil
	}
	// The rows are read back to resume and cut at a half-written row, which
	// only a regular file allows (reading a FIFO would wait for a writer).
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, 0, model.Usagef("--out %s: is not a regular file (mode %v); a sweep's rows go to a file it can resume, or to standard output without --out", path, fi.Mode().Type())
	}
	if err := outfile.Check(path); err != nil {
		return nil, 0, &model.UsageError{Err: err}
	}
	// Locked before it is read: a second sweep on the same file would
	// append rows the first does not know of.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, 0, fmt.Errorf("--out %s: another herd sweep is writing it; wait for it to end, or name another file", path)
		}
		return nil, 0, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxRowsFile+1))
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if len(data) > MaxRowsFile {
		f.Close()
		return nil, 0, model.Usagef("--out %s: holds more than %s of rows, more than a sweep writes; name another file", path, infile.Size(MaxRowsFile))
	}
	done, size := 0, 0
	if len(bytes.TrimSpace(data)) > 0 {
		if !resume {
			f.Close()
			return nil, 0, model.Usagef("--out %s already holds rows; pass --resume to continue that sweep, or remove the file", path)
		}
		if done, size, err = ResumeFrom(data, hash, total, shard); err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("--resume: %s: %w", path, err)
		}
	}
	if err := f.Truncate(int64(size)); err != nil {
		f.Close()
		return nil, 0, err
	}
	if _, err := f.Seek(int64(size), io.SeekStart); err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, done, nil
}
