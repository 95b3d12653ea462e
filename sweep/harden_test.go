package sweep

import (
	"math"
	"reflect"
	"testing"
)

// Issue 14, item 1: a shard count near MaxInt overflowed p += Count and
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
