package model

import (
	"github.com/herdlab/herd/policy"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestPresetsAreComplete(t *testing.T) {
	if len(policy.Presets()) < 14 {
		t.Fatalf("%d presets, want at least 14", len(policy.Presets()))
	}
	for _, p := range policy.Presets() {
		if p.Library == "" || p.Version == "" || p.Source == "" || p.Formula == "" || p.Defaults == "" {
			t.Errorf("%s: missing citation or formula: %+v", p.Name, p)
		}
		if _, err := policy.ParseKind(string(p.Name)); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		if err := (Scenario{Clients: 10, Capacity: 1, Policy: p.Policy(0), FirstWindow: 1}).Validate(); err != nil {
			t.Errorf("%s with its defaults: %v", p.Name, err)
		}
	}
}

// TestLawCDF checks Law.CDF against the empirical distribution of
// Law.Draw for every preset's first retries, within 4 binomial standard
// errors at a few points.
func TestLawCDF(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const m = 20000
	for _, p := range policy.Presets() {
		for n := 1; n <= 3; n++ {
			l := p.Law(n, p.Start())
			x := make([]float64, m)
			for i := range x {
				x[i] = l.Draw(r.Float64())
			}
			for _, q := range []float64{0.1, 0.5, 0.9} {
				at := x[int(q*m)] // an arbitrary sample point
				emp := 0.0
				for _, v := range x {
					if v <= at {
						emp++
					}
				}
				emp /= m
				f := l.CDF(at)
				if se := math.Sqrt(math.Max(f*(1-f), 1e-9) / m); math.Abs(emp-f) > 4*se+1e-12 {
					t.Errorf("%s retry %d: CDF(%g) = %g, empirical %g", p.Name, n, at, f, emp)
				}
			}
		}
	}
}

// TestPresetTicks: a preset's law in ticks is its law in seconds divided by
// the tick length.
func TestPresetTicks(t *testing.T) {
	p, _ := policy.LookupPreset("gcloud-truncated-expo")
	got := p.Policy(100*time.Millisecond).Law(2, 0)
	if got.Lo != 20 || got.Hi != 30 || got.Max != 320 {
		t.Errorf("retry 2 at 100ms ticks: got %+v, want U(20, 30) clamped at 320", got)
	}
	if u := p.Policy(0).Unit(); u != "s" {
		t.Errorf("unit with the default tick: %q", u)
	}
}

// TestPresetClasses: from retry Classes() on, the law no longer changes.
func TestPresetClasses(t *testing.T) {
	for _, p := range policy.Presets() {
		pol := p.Policy(0)
		pol.Retries = 0
		c := pol.Classes()
		if p.Stateful {
			if c != 0 {
				t.Errorf("%s is stateful but has %d classes", p.Name, c)
			}
			continue
		}
		if math.IsInf(pol.MaxDelay(), 1) {
			continue // unbounded without a limit: invalid
		}
		for n := c; n < c+50; n++ {
			if !pol.Law(n, 0).Equal(pol.Law(c, 0)) {
				t.Errorf("%s: law of retry %d differs from class %d", p.Name, n, c)
			}
		}
		if c > 1 && pol.Law(c-1, 0).Equal(pol.Law(c, 0)) {
			t.Errorf("%s: classes %d is not the smallest", p.Name, c)
		}
	}
}

func TestPresetValidation(t *testing.T) {
	sc := Default()
	sc.Policy = policy.Policy{Kind: "retryablehttp-linear-jitter"} // grows without bound, no limit
	err := sc.Validate()
	if fe, ok := err.(*FieldError); !ok || fe.Flag != "retries" {
		t.Errorf("unbounded preset without a retry limit: %v", err)
	}
	p, _ := policy.LookupPreset("cenkalti-v4")
	sc.Policy = p.Policy(time.Microsecond)
	fe, ok := sc.Validate().(*FieldError)
	if !ok || fe.Flag != "retries" || !strings.Contains(fe.Valid, "[1, 7]") {
		t.Fatalf("90 s delays at 1 µs ticks: %v", sc.Validate())
	}
	// The limit it names is the most that fit: 7 retries run, 8 do not.
	for r, fits := range map[int]bool{7: true, 8: false} {
		sc.Policy.Retries = r
		if err := sc.Validate(); (err == nil) != fits {
			t.Errorf("cenkalti-v4 at 1 µs ticks with %d retries: %v", r, err)
		}
	}
	sc.Policy = policy.Policy{Kind: policy.Full, Base: 1, Cap: 32, Retries: -1}
	if fe, ok := sc.Validate().(*FieldError); !ok || fe.Flag != "retries" {
		t.Errorf("negative retries: %v", sc.Validate())
	}
}
