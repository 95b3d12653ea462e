// Package memory holds the memory budget a run may use when the user sets
// none, and how a size is said to the user; every engine refuses a run over
// its budget before it allocates.
package memory

import "fmt"

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
