package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/herdlab/herd/model"
)

// OpenOut opens a sweep's --out for appending rows and says how many
// points are done. Resuming, it keeps the whole rows of this sweep's shard
// already there and cuts off a half-written last one; otherwise it refuses
// a file that holds rows, which a resume would need. No path is standard
// output: a nil file.
func OpenOut(path string, resume bool, hash string, total int, shard Shard) (*os.File, int, error) {
	if path == "" {
		return nil, 0, nil
	}
	// The rows are read back to resume and cut at a half-written row, which
	// only a regular file allows (reading a FIFO would wait for a writer).
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, 0, model.Usagef("--out %s: is not a regular file (mode %v); a sweep's rows go to a file it can resume, or to standard output without --out", path, fi.Mode().Type())
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, 0, err
	}
	done, size := 0, 0
	if len(bytes.TrimSpace(data)) > 0 {
		if !resume {
			return nil, 0, model.Usagef("--out %s already holds rows; pass --resume to continue that sweep, or remove the file", path)
		}
		if done, size, err = ResumeFrom(data, hash, total, shard); err != nil {
			return nil, 0, fmt.Errorf("--resume: %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, err
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
