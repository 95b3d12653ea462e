// Command herd measures what retry policies cost a server when N clients
// fail at the same moment, by analytical models and by Monte Carlo.
//
// Usage:
//
//	herd reproduce seed            # the seed article's table, with 95% CIs
//	herd simulate -n 1000 -k 10 --policy full --trials 10000 --format json
//	herd simulate -n 1000000000 -k 10000000 --trials 10   # the count engine
//	herd sweep --policy full,equal --cap 16:2048:*2 --out sweep.jsonl
//	herd sweep --spec deploy/sweep.yaml --shard auto --resume --out shard.jsonl
//	herd merge shard-*.jsonl --out sweep.jsonl
//	herd compare -n 1000 -k 100/s --tick 10ms --policy full,cenkalti-v4 --out review
//	herd cite
//
// Every command prints a table on a terminal and JSON otherwise (choose with
// --format table|csv|json, and markdown where a table is worth pasting);
// --out FILE writes atomically. Every output carries one cite line: herd's
// version, the revision and whether the tree was modified, the command,
// seed, trials and engine. Tables fit the terminal ($COLUMNS; --wide shows
// every column). Usage errors and limits exit with status 2, other
// failures with status 1, an interrupted run with 130 and an internal
// error (a panic, with its stack) with 3.
//
// Each command is an options struct holding its streams and what its flags
// said, a newCmdX(f, runF) constructor that parses the flags into it, and
// an xRun(opts) function that calls the library and hands its result to
// internal/render, which writes it in every format; tests pass a runF to
// check the parsing without running anything.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], systemStreams())) }
