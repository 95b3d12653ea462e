// Package infile reads the files a user names (policies, spec files, a
// sweep's rows) with a bound: only regular files, read no further than a
// size limit, so that /dev/zero, a FIFO or a runaway file is refused by
// name instead of filling memory or waiting for ever.
package infile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Error is a file the user named that herd will not read: missing,
// unreadable, not a regular file or over its size limit. It is bad input,
// named by the flag that gave it (empty for a command's argument).
type Error struct {
	Flag, Path string
	Err        error
}

func (e *Error) Error() string {
	if e.Flag == "" {
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("--%s %s: %v", e.Flag, e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Read reads the regular file path, given by --flag, refusing it when it
// holds more than max bytes.
func Read(flag, path string, max int64) ([]byte, error) {
	return ReadLines(flag, path, max, 0)
}

// ReadLines is Read for a file of lines, refusing it as soon as one line
// (its newline included) is longer than maxLine bytes (0: no line bound),
// so that a file that is not lines (a runaway scalar, a binary) costs no
// more than one line's read.
func ReadLines(flag, path string, max, maxLine int64) ([]byte, error) {
	fail := func(err error) ([]byte, error) { return nil, &Error{flag, path, err} }
	// Stat before opening: opening a FIFO waits for a writer.
	fi, err := os.Stat(path)
	if err != nil {
		return fail(reason(err))
	}
	if !fi.Mode().IsRegular() {
		return fail(fmt.Errorf("is not a regular file (it is a %s); name a file", kind(fi.Mode())))
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(reason(err))
	}
	defer f.Close()
	b, err := readLines(io.LimitReader(f, max+1), maxLine)
	if errors.Is(err, errLongLine) {
		return fail(fmt.Errorf("line %d is longer than %s, more than a line of it may be", bytes.Count(b, []byte{'\n'})+1, Size(maxLine)))
	}
	if err != nil {
		return fail(reason(err))
	}
	if int64(len(b)) > max {
		return fail(fmt.Errorf("holds more than %s, the most herd reads from it", Size(max)))
	}
	return b, nil
}

var errLongLine = errors.New("line too long")

// readLines reads r whole, stopping with errLongLine (and the bytes before
// that line) at a line longer than maxLine.
func readLines(r io.Reader, maxLine int64) ([]byte, error) {
	if maxLine <= 0 {
		return io.ReadAll(r)
	}
	var out []byte
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			if int64(len(line)) > maxLine {
				return out, errLongLine
			}
			more := append([]byte(nil), line...)
			line, err = br.ReadSlice('\n')
			line = append(more, line...)
		}
		if int64(len(line)) > maxLine {
			return out, errLongLine
		}
		out = append(out, line...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// reason is err without the path a *fs.PathError repeats.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// Size says a number of bytes in KiB, MiB or GiB.
func Size(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%g GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%g MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%g KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", b)
}
