package main

import (
	"io"
	"os"

	"github.com/herdlab/herd/sweep"
	"github.com/spf13/cobra"
)

func newMergeCmd() *cobra.Command {
	var out outputFlags
	c := &cobra.Command{
		Use:   "merge SHARD.jsonl...",
		Short: "Join the shards of a sweep into the output of the unsharded sweep",
		Long: `merge reads the JSON Lines files written by herd sweep --shard and writes their
rows in point order: exactly the bytes the unsharded sweep writes. It refuses,
with exit status 1 and the file and points named, rows of different sweeps
(their spec hashes differ), a point present twice (a duplicated shard), points
absent (a missing or unfinished shard) and a file cut off mid-row.`,
		Example: `  herd merge shard-0.jsonl shard-1.jsonl shard-2.jsonl shard-3.jsonl --out sweep.jsonl`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			var files []sweep.ShardFile
			for _, name := range args {
				data, err := os.ReadFile(name)
				if err != nil {
					return err
				}
				files = append(files, sweep.ShardFile{Name: name, Data: data})
			}
			merged, err := sweep.Merge(files)
			if err != nil {
				return err
			}
			return out.write(c.OutOrStdout(), func(w io.Writer) error {
				_, err := w.Write(merged)
				return err
			})
		},
	}
	c.Flags().StringVar(&out.out, "out", "", "write the merged rows to this file (atomically) instead of standard output")
	return c
}
