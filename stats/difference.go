package stats

// Difference is a paired difference A − B of a per-trial quantity over
// trials that share their random stream (common random numbers), with its
// 95% Student-t interval. Significant is true when the interval excludes 0.
type Difference struct {
	Estimate
	Significant bool `json:"significant"`
}

// Difference is the estimate of the folded values read as paired
// differences: their mean with its interval, significant when the interval
// excludes 0.
func (m *Moments) Difference() Difference {
	e := m.Estimate()
	return Difference{Estimate: e, Significant: e.CI95 != nil && (e.CI95[0] > 0 || e.CI95[1] < 0)}
}

// Scaled is the difference of f times the quantities (f > 0).
func (d Difference) Scaled(f float64) Difference {
	d.Estimate = d.Estimate.Scaled(f)
	return d
}
