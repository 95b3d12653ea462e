package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// A shard count near MaxInt overflowed p += Count and
// panicked with a negative index.
func TestShardPointsHugeCount(t *testing.T) {
	for _, c := range []struct {
		total int
		sh    Shard
		want  []int
	}{
		{2, Shard{1, math.MaxInt}, []int{1}},
		{2, Shard{0, math.MaxInt}, []int{0}},
		{2, Shard{5, math.MaxInt}, nil},
		{7, Shard{1, 3}, []int{1, 4}},
		{7, Shard{0, 1}, []int{0, 1, 2, 3, 4, 5, 6}},
		{0, Shard{0, 1}, nil},
	} {
		if got := ShardPoints(c.total, c.sh); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ShardPoints(%d, %v) = %v, want %v", c.total, c.sh, got, c.want)
		}
	}
}

// corruptions are the ways a row's body can differ from what herd wrote
// and must be refused: a flipped digit in calls.mean, a row cut down to its
// header fields, CRLF line endings. It returns the name of the corruption
// and the file's bytes.
func corruptions(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte("\n"))
	second := lines[1]
	i := bytes.Index(second, []byte(`"calls":{"mean":`))
	if i < 0 {
		t.Fatalf("no calls.mean in %s", second)
	}
	j := i + len(`"calls":{"mean":`)
	flipped := append([]byte(nil), second...)
	flipped[j] = "12345678901"[flipped[j]-'0'] // the next digit, 9 → 0
	var h rowHead
	if err := json.Unmarshal(second, &h); err != nil {
		t.Fatal(err)
	}
	header := []byte(fmt.Sprintf(`{"point":%d,"points":%d,"spec":%q}`+"\n", *h.Point, *h.Points, h.Spec))
	with := func(row []byte) []byte {
		out := append([]byte(nil), lines[0]...)
		out = append(out, row...)
		for _, l := range lines[2:] {
			out = append(out, l...)
		}
		return out
	}
	return map[string][]byte{
		"a flipped digit in calls.mean": with(flipped),
		"a row cut to its header":       with(header),
		"CRLF line endings":             bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")),
	}
}

// Resume and merge verify each row's integrity check
// and name the file and line of a bad row.
func TestCorruptedRowsRefused(t *testing.T) {
	spec, pts := smallSweep()
	whole, err := sweepBytes(t, context.Background(), spec, pts, SweepOptions{Shard: Whole})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Merge([]ShardFile{{"whole", whole}}); err != nil {
		t.Fatalf("merge of a sound file: %v", err)
	}
	if rows, _, err := ResumeFrom(whole, spec.Hash(pts), len(pts), Whole); err != nil || rows != len(pts) {
		t.Fatalf("resume of a sound file: %d rows, %v", rows, err)
	}
	for name, data := range corruptions(t, whole) {
		_, err := Merge([]ShardFile{{"shard.jsonl", data}})
		var re *RowError
		if !errors.As(err, &re) || re.File != "shard.jsonl" || re.Line != 2 && name != "CRLF line endings" || re.Line != 1 && name == "CRLF line endings" {
			t.Errorf("merge of %s: %v, want a RowError naming shard.jsonl and the bad line", name, err)
		}
		_, _, err = ResumeFrom(data, spec.Hash(pts), len(pts), Whole)
		if err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("resume of %s: %v, want a refusal naming the line", name, err)
		}
	}
}

// A row claiming a grid of MaxInt points (its check made
// to match) is refused before anything is allocated for the grid.
func TestMergeHugePointsClaimRefused(t *testing.T) {
	row := sealRow([]byte(`{"point":0,"points":9223372036854775807,"spec":"0123456789abcdef"}`))
	_, err := Merge([]ShardFile{{"one.jsonl", row}})
	if err == nil || !strings.Contains(err.Error(), "one.jsonl: line 1") || !strings.Contains(err.Error(), "9223372036854775807") {
		t.Errorf("merge: %v", err)
	}
	// The largest grid allowed, with one row present: refused as missing
	// points without listing them all.
	row = sealRow([]byte(fmt.Sprintf(`{"point":0,"points":%d,"spec":"0123456789abcdef"}`, MaxSweepPoints)))
	_, err = Merge([]ShardFile{{"one.jsonl", row}})
	if err == nil || !strings.Contains(err.Error(), "missing") || len(err.Error()) > 300 {
		t.Errorf("merge: %v", err)
	}
}

// A 10 M point grid was allowed and expanded whole before
// its first row; it is refused at once, saying how to split it.
func TestHugeGridRefused(t *testing.T) {
	_, err := SweepSpec{Grid: Grid{"clients": "1:100000", "capacity": "1:100"}, Trials: 1, Seed: 1}.Points()
	if err == nil || !strings.Contains(err.Error(), "10000000 points") || !strings.Contains(err.Error(), "split") {
		t.Errorf("%v", err)
	}
}
