// Package memory holds the memory budget a run may use when the user sets
// none, and how a size is said to the user; every engine refuses a run over
// its budget before it allocates.
package memory

import (
	"fmt"
	"strconv"
	"strings"
)

// Budget is the memory a run may use by default, in bytes.
const Budget = 4 << 30

// Text is a size as a person reads it: KiB, MiB or GiB.
func Text(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", (b+1023)/1024)
}

// Parse reads a size such as 512MiB, 8GiB, 2GB or a number of bytes, from
// 1 MiB to 1 PiB; "" is 0 (the default budget).
func Parse(text string) (int64, error) {
	if text == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		bytes  float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	num, scale := text, 1.0
	for _, u := range units {
		if strings.HasSuffix(text, u.suffix) {
			num, scale = strings.TrimSpace(strings.TrimSuffix(text, u.suffix)), u.bytes
			break
		}
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || !(x*scale >= 1<<20) || x*scale > 1<<50 {
		return 0, fmt.Errorf("must be a size from 1MiB to 1PiB such as 512MiB or 8GiB, got %q", text)
	}
	return int64(x * scale), nil
}
