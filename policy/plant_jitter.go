//go:build plantjitter

package policy

// Built with -tags plantjitter, every preset's jitter is 1.1 times as wide
// (a uniform law's upper end moved, its lower end kept): a planted error
// that the virtual-time check (the virtual module) must find. Never built
// otherwise.
func init() {
	for i := range presets {
		law := presets[i].law
		presets[i].law = func(n int, prev float64) Law {
			l := law(n, prev)
			if l.Hi > l.Lo && l.Warp == WarpNone {
				l.Hi = l.Lo + 1.1*(l.Hi-l.Lo)
			}
			return l
		}
	}
}
