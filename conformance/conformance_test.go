package conformance

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	retrygo "github.com/avast/retry-go/v4"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	backoff4 "github.com/cenkalti/backoff/v4"
	backoff5 "github.com/cenkalti/backoff/v5"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/herdlab/herd/policy"
	goretry "github.com/sethvargo/go-retry"
	"gonum.org/v1/gonum/stat"
	clientgoretry "k8s.io/client-go/util/retry"
)

// samples is the number of delays drawn per retry number from each side.
const samples = 10_000

// comparisons bounds the number of KS tests in TestConformance, for the
// Bonferroni correction: each test runs at level familyAlpha/comparisons.
const (
	comparisons = 100
	familyAlpha = 0.001
)

// ksCritical is the critical value of the two-sample KS statistic for
// sample sizes n and m at level alpha (the asymptotic Kolmogorov bound,
// c(α)·√((n+m)/(nm)) with c(α) = √(−ln(α/2)/2)).
func ksCritical(n, m int, alpha float64) float64 {
	c := math.Sqrt(-math.Log(alpha/2) / 2)
	return c * math.Sqrt(float64(n+m)/float64(n*m))
}

// micro rounds a delay in seconds to whole microseconds, so that the
// nanosecond truncations of time.Duration arithmetic, which herd does not
// always copy, cannot split an atom of a discrete law in two.
func micro(s float64) float64 { return math.Round(s*1e6) / 1e6 }

func seconds(d time.Duration) float64 { return micro(d.Seconds()) }

// herdDelays draws size delays, in seconds, of retry n from a preset's law
// (for a law that depends on n alone).
func herdDelays(law func(n int) policy.Law, n, size int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	out := make([]float64, size)
	l := law(n)
	for i := range out {
		out[i] = micro(l.Draw(r.Float64()))
	}
	return out
}

// verdict compares two samples of one retry number's delays: exactly when
// herd's law is a point mass, by KS otherwise. It returns an error saying
// why they differ, or nil.
func verdict(lib, herd []float64, herdLaw policy.Law) error {
	if herdLaw.Deterministic() {
		want := micro(herdLaw.Draw(0))
		for _, x := range lib {
			if x != want {
				return fmt.Errorf("library drew %v s, herd's law is exactly %v s", x, want)
			}
		}
		return nil
	}
	a, b := slices.Clone(lib), slices.Clone(herd)
	slices.Sort(a)
	slices.Sort(b)
	d := stat.KolmogorovSmirnov(a, nil, b, nil)
	crit := ksCritical(len(a), len(b), familyAlpha/comparisons)
	if d > crit {
		return fmt.Errorf("KS D = %.4f > %.4f (library range [%v, %v], herd range [%v, %v])", d, crit, a[0], a[len(a)-1], b[0], b[len(b)-1])
	}
	return nil
}

// source draws delays of retry n from a real library, in seconds.
type source struct {
	preset policy.Kind
	// retries are the retry numbers to compare: up to the retry limit, and
	// past the cap when the library has none.
	retries int
	draw    func(t *testing.T, n, size int) []float64
}

var errTransient = errors.New("transient")

type throttleError struct{}

func (throttleError) Error() string     { return "throttled" }
func (throttleError) ErrorCode() string { return "ThrottlingException" }

// nth draws size values of the n-th call of a fresh sequence.
func nth(size, n int, fresh func() func() time.Duration) []float64 {
	out := make([]float64, size)
	for i := range out {
		next := fresh()
		var d time.Duration
		for range n {
			d = next()
		}
		out[i] = seconds(d)
	}
	return out
}

// retryGoDelays runs retry-go's default Do against an always failing
// function with a timer that records each wait and fires at once, size
// times; delays[n-1] holds the waits before retry n.
func retryGoDelays(t *testing.T, size int) [][]float64 {
	var delays [][]float64
	for range size {
		rec := &recorder{}
		_ = retrygo.Do(func() error { return errTransient }, retrygo.WithTimer(rec))
		for len(delays) < len(rec.waits) {
			delays = append(delays, nil)
		}
		for i, w := range rec.waits {
			delays[i] = append(delays[i], seconds(w))
		}
	}
	return delays
}

type recorder struct{ waits []time.Duration }

func (r *recorder) After(d time.Duration) <-chan time.Time {
	r.waits = append(r.waits, d)
	c := make(chan time.Time, 1)
	c <- time.Time{}
	return c
}

var retryGoCache [][]float64

var sources = []source{
	{"aws-go-v2-legacy", 6, func(t *testing.T, n, size int) []float64 {
		b := awsretry.NewExponentialJitterBackoff(awsretry.DefaultMaxBackoff)
		return repeat(size, func() time.Duration { return must(t)(b.BackoffDelay(n, errTransient)) })
	}},
	{"aws-go-v2-2026", 11, func(t *testing.T, n, size int) []float64 {
		s := awsretry.NewStandard()
		return repeat(size, func() time.Duration { return must(t)(s.RetryDelay(n, errTransient)) })
	}},
	{"aws-go-v2-2026-throttle", 7, func(t *testing.T, n, size int) []float64 {
		s := awsretry.NewStandard()
		return repeat(size, func() time.Duration { return must(t)(s.RetryDelay(n, throttleError{})) })
	}},
	{"cenkalti-v4", 14, func(t *testing.T, n, size int) []float64 {
		return nth(size, n, func() func() time.Duration {
			b := backoff4.NewExponentialBackOff()
			return b.NextBackOff
		})
	}},
	{"cenkalti-v5", 14, func(t *testing.T, n, size int) []float64 {
		return nth(size, n, func() func() time.Duration {
			b := backoff5.NewExponentialBackOff()
			return b.NextBackOff
		})
	}},
	{"retry-go-v4", 9, func(t *testing.T, n, size int) []float64 {
		if retryGoCache == nil {
			retryGoCache = retryGoDelays(t, size)
		}
		return retryGoCache[n-1]
	}},
	{"retryablehttp-default", 6, func(t *testing.T, n, size int) []float64 {
		c := retryablehttp.NewClient()
		return repeat(size, func() time.Duration { return retryablehttp.DefaultBackoff(c.RetryWaitMin, c.RetryWaitMax, n-1, nil) })
	}},
	{"retryablehttp-linear-jitter", 4, func(t *testing.T, n, size int) []float64 {
		c := retryablehttp.NewClient()
		return repeat(size, func() time.Duration {
			return retryablehttp.LinearJitterBackoff(c.RetryWaitMin, c.RetryWaitMax, n-1, nil)
		})
	}},
	{"go-retry-expo-jitter", 4, func(t *testing.T, n, size int) []float64 {
		return nth(size, n, func() func() time.Duration {
			b := goretry.WithMaxRetries(4, goretry.WithJitterPercent(5, goretry.NewExponential(time.Second)))
			return func() time.Duration { d, _ := b.Next(); return d }
		})
	}},
	{"client-go-default-backoff", 3, func(t *testing.T, n, size int) []float64 {
		return nth(size, n, func() func() time.Duration {
			b := clientgoretry.DefaultBackoff
			return b.Step
		})
	}},
}

func repeat(size int, f func() time.Duration) []float64 {
	out := make([]float64, size)
	for i := range out {
		out[i] = seconds(f())
	}
	return out
}

func must(t *testing.T) func(time.Duration, error) time.Duration {
	return func(d time.Duration, err error) time.Duration {
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
}

func preset(t *testing.T, name policy.Kind) policy.Preset {
	p, ok := policy.LookupPreset(name)
	if !ok {
		t.Fatalf("no preset %s", name)
	}
	return p
}

// TestConformance compares each Go library's delays with its preset's law,
// retry number by retry number.
func TestConformance(t *testing.T) {
	total := 0
	for _, s := range sources {
		total += s.retries
	}
	if total > comparisons {
		t.Fatalf("%d comparisons, more than the %d the Bonferroni level allows for", total, comparisons)
	}
	for _, s := range sources {
		t.Run(string(s.preset), func(t *testing.T) {
			p := preset(t, s.preset)
			law := func(n int) policy.Law { return p.Law(n, p.Start()) }
			for n := 1; n <= s.retries; n++ {
				lib := s.draw(t, n, samples)
				if len(lib) < samples {
					t.Fatalf("retry %d: only %d library delays", n, len(lib))
				}
				// The libraries' random sources cannot be seeded, so a correct
				// preset fails a comparison with probability ≤ 0.001/100; a
				// failure is confirmed on fresh draws from both sides before
				// it counts, which makes a spurious failure of the whole test
				// about a million times rarer and costs a wrong preset nothing
				// (it fails both).
				if err := verdict(lib, herdDelays(law, n, samples, 1), law(n)); err != nil {
					if err2 := verdict(s.draw(t, n, samples), herdDelays(law, n, samples, 2), law(n)); err2 != nil {
						t.Errorf("retry %d: %v; confirmed on fresh draws: %v", n, err, err2)
					}
				}
			}
		})
	}
}

// TestAlteredPresetsAreRejected shows that the checks of TestConformance
// can fail: a preset whose retry numbers are shifted by one, or whose
// delays are 10% longer, is rejected for some retry number.
func TestAlteredPresetsAreRejected(t *testing.T) {
	alterations := map[string]func(p policy.Preset) func(n int) policy.Law{
		"shifted": func(p policy.Preset) func(n int) policy.Law {
			return func(n int) policy.Law { return p.Law(n+1, p.Start()) }
		},
		"scaled": func(p policy.Preset) func(n int) policy.Law {
			return func(n int) policy.Law {
				l := p.Law(n, p.Start())
				l.Lo, l.Hi = 1.1*l.Lo, 1.1*l.Hi
				return l
			}
		},
	}
	for _, s := range sources {
		for name, alter := range alterations {
			t.Run(string(s.preset)+"/"+name, func(t *testing.T) {
				p := preset(t, s.preset)
				law := alter(p)
				for n := 1; n <= s.retries; n++ {
					if verdict(s.draw(t, n, samples), herdDelays(law, n, samples, 2), law(n)) != nil {
						return // rejected, as it must be
					}
				}
				if name == "scaled" && p.Law(1, 0).Draw(0) == 0 && p.Law(1, 0).Deterministic() {
					t.Skip("a zero delay is unchanged by scaling")
				}
				t.Errorf("the altered preset passed every check")
			})
		}
	}
}

// TestLimits checks the deterministic parts that are not delays: each
// preset's retry limit and elapsed-time limit against the library's.
func TestLimits(t *testing.T) {
	check := func(name policy.Kind, got int, what string) {
		t.Helper()
		if p := preset(t, name); p.Retries != got {
			t.Errorf("%s: preset retries %d, library %s gives %d", name, p.Retries, what, got)
		}
	}
	check("aws-go-v2-legacy", awsretry.DefaultMaxAttempts-1, "DefaultMaxAttempts−1")
	check("aws-go-v2-2026", awsretry.NewStandard().MaxAttempts()-1, "NewStandard().MaxAttempts()−1")
	check("retryablehttp-default", retryablehttp.NewClient().RetryMax, "NewClient().RetryMax")
	check("retryablehttp-linear-jitter", retryablehttp.NewClient().RetryMax, "NewClient().RetryMax")
	check("client-go-default-backoff", clientgoretry.DefaultBackoff.Steps-1, "DefaultBackoff.Steps−1")
	check("retry-go-v4", len(retryGoDelays(t, 1)[0:]), "delays of one Do run")

	// go-retry: WithMaxRetries(4) stops at the fifth Next.
	b := goretry.WithMaxRetries(4, goretry.WithJitterPercent(5, goretry.NewExponential(time.Second)))
	retries := 0
	for _, stop := b.Next(); !stop; _, stop = b.Next() {
		retries++
	}
	check("go-retry-expo-jitter", retries, "Next calls before stop")

	// failsafe-go: run the default policy against an always failing
	// function and record the scheduled delays.
	var delays []time.Duration
	rp := retrypolicy.NewBuilder[any]().OnRetryScheduled(func(e failsafe.ExecutionScheduledEvent[any]) {
		delays = append(delays, e.Delay)
	}).Build()
	attempts := 0
	_ = failsafe.With[any](rp).Run(func() error { attempts++; return errTransient })
	check("failsafe-go-default", attempts-1, "attempts−1 of Run")
	p := preset(t, "failsafe-go-default")
	for i, d := range delays {
		if want := p.Law(i+1, 0).Draw(0); d.Seconds() != want {
			t.Errorf("failsafe-go retry %d: library delay %v, preset %v s", i+1, d, want)
		}
	}

	for _, c := range []struct {
		name policy.Kind
		lib  time.Duration
	}{{"cenkalti-v4", backoff4.DefaultMaxElapsedTime}, {"cenkalti-v5", backoff5.DefaultMaxElapsedTime}} {
		if p := preset(t, c.name); p.MaxElapsed != c.lib {
			t.Errorf("%s: preset MaxElapsed %v, library %v", c.name, p.MaxElapsed, c.lib)
		}
	}
}

// TestEveryGoPresetIsChecked keeps the preset list and this module in step:
// every preset that names a Go module has a source here.
func TestEveryGoPresetIsChecked(t *testing.T) {
	have := map[policy.Kind]bool{"failsafe-go-default": true} // checked exactly in TestLimits
	for _, s := range sources {
		have[s.preset] = true
	}
	for _, p := range policy.Presets() {
		if p.Module != "" && !have[p.Name] {
			t.Errorf("preset %s names module %s but has no conformance source", p.Name, p.Module)
		}
	}
}
