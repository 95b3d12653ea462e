package main

import (
	"io"

	"github.com/herdlab/herd/internal/infile"
	"github.com/herdlab/herd/internal/usage"
	"github.com/herdlab/herd/sweep"
	"github.com/spf13/cobra"
)

// mergeOptions are what herd merge's arguments said.
type mergeOptions struct {
	IO     *iostreams
	Files  []string // the shards' JSON Lines files
	Output output
}

func newCmdMerge(f *factory, runF func(*mergeOptions) error) *cobra.Command {
	opts := &mergeOptions{IO: f.IO}
	var out string
	c := &cobra.Command{
		Use:   "merge SHARD.jsonl...",
		Short: "Join the shards of a sweep into the output of the unsharded sweep",
		Long: `merge reads the JSON Lines files written by herd sweep --shard and writes their
rows in point order: exactly the bytes the unsharded sweep writes. It refuses,
with exit status 1 and the file and points named, rows of different sweeps
(their spec hashes differ), a point present twice (a duplicated shard), points
absent (a missing or unfinished shard), a file cut off mid-row, and a row whose
integrity check fails: every row ends with "check", a hash of its other bytes,
so a row edited, cut short or rewritten (CRLF line endings) is refused with its
file and line. Rows written before herd had the check are refused too: rerun
their sweep.`,
		Example: `  herd merge shard-0.jsonl shard-1.jsonl shard-2.jsonl shard-3.jsonl --out sweep.jsonl`,
		Args:    usage.Args(1, "the shard files to join, herd merge SHARD.jsonl..."),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files, opts.Output = args, output{Path: stdoutPath(out)}
			if runF != nil {
				return runF(opts)
			}
			return mergeRun(opts)
		},
	}
	c.Flags().StringVar(&out, "out", "", "write the merged rows to this file (atomically) instead of standard output")
	return c
}

func mergeRun(opts *mergeOptions) error {
	var files []sweep.ShardFile
	for _, name := range opts.Files {
		data, err := infile.ReadLines("", name, sweep.MaxRowsFile, sweep.MaxRow)
		if err != nil {
			return usageError{err}
		}
		files = append(files, sweep.ShardFile{Name: name, Data: data})
	}
	merged, err := sweep.Merge(files)
	if err != nil {
		return err
	}
	return opts.Output.write(opts.IO, func(w io.Writer) error {
		_, err := w.Write(merged)
		return err
	})
}
