package montecarlo

import (
	"math"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// openTrials plays open-loop trials and returns copies of them.
func openTrials(t *testing.T, sc model.Scenario, tr model.Traffic, ctl control.Controls, opt Options) []Trial {
	t.Helper()
	out := playWork(t, sc, OpenLoop{tr, ctl}, opt)
	for i := range out {
		if out[i].Open == nil {
			t.Fatal("open-loop trial without its OpenTrial")
		}
	}
	return out
}

func openScenario(clients, k int, kind policy.Kind) model.Scenario {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Policy.Kind = clients, k, kind
	return sc
}

// With capacity far above the load and no outage every request is served at
// its first send, so the sends are the Poisson arrivals: their mean per
// trial is λ·T within 4σ, and every latency is 1.
func TestOpenLoopPoissonArrivals(t *testing.T) {
	sc := openScenario(7, 1000, policy.Full)
	tr := model.Traffic{Rate: 3.5, Ticks: 200}
	const trials = 2000
	var sum float64
	for _, x := range openTrials(t, sc, tr, control.Controls{}, Options{Trials: trials, Seed: 9}) {
		o := x.Open
		if x.Calls != o.NewRequests || x.Served != o.NewRequests || o.Retries != 0 || o.Backlog != 0 || !o.Recovered || x.Censored {
			t.Fatalf("unloaded server: %+v %+v", x, *o)
		}
		if x.Latency.Max() > 1 {
			t.Fatalf("latency above 1 on an unloaded server: %v", x.Latency)
		}
		sum += float64(o.NewRequests)
	}
	mean, want := sum/trials, tr.Rate*float64(tr.Ticks)
	if se := math.Sqrt(want / trials); math.Abs(mean-want) > 4*se {
		t.Errorf("mean new requests %g, want %g ± %g (4σ)", mean, want, 4*se)
	}
}

// failAll is a trial-long outage with capacity 0: every send fails.
func failAll(rate float64, ticks int) model.Traffic {
	return model.Traffic{Rate: rate, Ticks: ticks, OutageLength: ticks}
}

// Brooker's "at 100% failure rate, N retries do 1+N times as much work":
// with the policy none (a retry every tick) and at most two attempts, every
// request that gave up sent exactly twice and every pending one once, so
// Calls = 2·GaveUp + Backlog exactly; with three attempts the pending ones
// sent once or twice.
func TestMaxAttemptsAtTotalFailure(t *testing.T) {
	sc := openScenario(5, 10, policy.None)
	for _, a := range []int{1, 2, 3} {
		for _, x := range openTrials(t, sc, failAll(4, 300), control.Controls{MaxAttempts: a}, Options{Trials: 50, Seed: 2}) {
			o := x.Open
			if x.Served != 0 || o.GaveUp != o.GaveUpBy[byLimit] || o.GaveUp+o.Backlog != o.NewRequests {
				t.Fatalf("a=%d: %+v %+v", a, x, *o)
			}
			lo, hi := int64(a)*o.GaveUp+o.Backlog, int64(a)*o.GaveUp+int64(a-1)*o.Backlog
			if a == 1 {
				lo, hi = o.GaveUp, o.GaveUp
			}
			if x.Calls < lo || x.Calls > hi || o.Retries != x.Calls-o.NewRequests {
				t.Fatalf("a=%d: calls %d, want in [%d, %d]; retries %d", a, x.Calls, lo, hi, o.Retries)
			}
		}
	}
}

// At 100% failure no success refills a bucket, so each client retries
// exactly ⌊capacity/cost⌋ times in all: 100 for the AWS SDK's 500 tokens at
// 5 a retry, 10 for a Brooker bucket of 10 tokens; every later failure
// gives up for want of tokens.
func TestBucketsAtTotalFailure(t *testing.T) {
	sc := openScenario(4, 10, policy.None)
	for _, c := range []struct {
		kind    control.BucketKind
		retries int64
	}{{control.AWSBucket, 100}, {control.BrookerBucket, 10}} {
		ctl := control.Controls{Bucket: control.DefaultBucket(c.kind)}
		for _, x := range openTrials(t, sc, failAll(8, 400), ctl, Options{Trials: 20, Seed: 4}) {
			o := x.Open
			if o.Retries != c.retries*int64(sc.Clients) || o.GaveUpBy[byBucket] != o.GaveUp || o.GaveUp+o.Backlog != o.NewRequests {
				t.Fatalf("%s: retries %d (want %d), gave up %+v, backlog %d, new %d", c.kind, o.Retries, c.retries*int64(sc.Clients), o.GaveUpBy, o.Backlog, o.NewRequests)
			}
		}
	}
}

// Successes refill buckets: on an overloaded server, where sends both fail
// and succeed, a Brooker bucket's retries never exceed its size plus 0.1
// per success, and it does refuse some.
func TestBrookerBucketBound(t *testing.T) {
	sc := openScenario(3, 20, policy.Full)
	tr := model.Traffic{Rate: 30, Ticks: 400} // 150% of capacity: many failures, many successes
	ctl := control.Controls{Bucket: control.DefaultBucket(control.BrookerBucket)}
	for _, x := range openTrials(t, sc, tr, ctl, Options{Trials: 20, Seed: 6}) {
		o := x.Open
		bound := float64(sc.Clients)*ctl.Bucket.Capacity + ctl.Bucket.Deposit*float64(x.Served)
		if float64(o.Retries) > bound || o.GaveUpBy[byBucket] == 0 || x.Served == 0 {
			t.Fatalf("retries %d, bound %g, gave up %+v, served %d", o.Retries, bound, o.GaveUpBy, x.Served)
		}
	}
}

// A breaker over 10 calls that opens at 50% failures, at total failure and
// with no retries: the first tick's sends all go (it opens on the 10th
// outcome), then it refuses everything but one probe every cooldown + 1
// ticks, each of which fails and opens it again.
func TestBreakerAtTotalFailure(t *testing.T) {
	sc := openScenario(1, 10, policy.None)
	const cooldown = 7
	ctl := control.Controls{MaxAttempts: 1, Breaker: control.Breaker{Window: 10, Threshold: 0.5, MinCalls: 10, Cooldown: cooldown}}
	for _, x := range openTrials(t, sc, failAll(40, 200), ctl, Options{Trials: 20, Seed: 8, Arrivals: true}) {
		if x.Arrivals[0] < 10 {
			t.Fatalf("only %d arrivals at tick 0: the breaker needs 10 outcomes to open, so this seed tests nothing", x.Arrivals[0])
		}
		for tick, m := range x.Arrivals[1:] {
			want := int64(0)
			if (tick+1)%(cooldown+1) == 0 {
				want = 1
			}
			if m != want {
				t.Fatalf("tick %d: %d sends, want %d (sends %v)", tick+1, m, want, x.Arrivals[:30])
			}
		}
		o := x.Open
		if o.GaveUpBy[byBreaker]+o.GaveUpBy[byLimit] != o.NewRequests {
			t.Fatalf("gave up %+v of %d", o.GaveUpBy, o.NewRequests)
		}
	}
}

// A breaker that sees a success after its cool-down closes again: after a
// short outage the probe succeeds and sends resume at full rate.
func TestBreakerCloses(t *testing.T) {
	sc := openScenario(1, 1000, policy.None)
	ctl := control.Controls{MaxAttempts: 1, Breaker: control.Breaker{Window: 10, Threshold: 0.5, MinCalls: 10, Cooldown: 5}}
	tr := model.Traffic{Rate: 40, Ticks: 100, OutageStart: 10, OutageLength: 3}
	for _, x := range openTrials(t, sc, tr, ctl, Options{Trials: 20, Seed: 8, Arrivals: true}) {
		if last := x.Arrivals[len(x.Arrivals)-1]; last < 10 {
			t.Fatalf("breaker still refusing at the end: sends %v", x.Arrivals)
		}
	}
}

// On the capacity server goodput stays k under any overload, so with λ < k
// every trial recovers after an outage; with λ > k none does.
func TestCapacityServerRecovers(t *testing.T) {
	sc := openScenario(10, 20, policy.Full)
	tr := model.Traffic{Rate: 15, Ticks: 3000, OutageStart: 50, OutageLength: 200}
	for _, x := range openTrials(t, sc, tr, control.Controls{}, Options{Trials: 30, Seed: 1}) {
		if !x.Open.Recovered {
			t.Fatalf("λ < k on the capacity server did not recover: %+v", *x.Open)
		}
	}
	tr.Rate = 25
	for _, x := range openTrials(t, sc, tr, control.Controls{}, Options{Trials: 30, Seed: 1}) {
		if x.Open.Recovered {
			t.Fatalf("λ > k recovered: %+v", *x.Open)
		}
	}
}

// The arrivals are common random numbers: two policies, and two sets of
// controls, on one seed see the same new requests in every trial; and
// results do not depend on the number of workers.
func TestOpenLoopCommonArrivalsAndWorkers(t *testing.T) {
	sc := openScenario(6, 10, policy.Full)
	tr := model.Traffic{Rate: 8, Ticks: 300, OutageStart: 20, OutageLength: 30}
	a := openTrials(t, sc, tr, control.Controls{}, Options{Trials: 40, Seed: 3, Workers: 1})
	sc2 := sc
	sc2.Policy.Kind = policy.Decorrelated
	b := openTrials(t, sc2, tr, control.Controls{Bucket: control.DefaultBucket(control.BrookerBucket)}, Options{Trials: 40, Seed: 3, Workers: 3})
	c := openTrials(t, sc, tr, control.Controls{}, Options{Trials: 40, Seed: 3, Workers: 3})
	differ := false
	for i := range a {
		if a[i].Open.NewRequests != b[i].Open.NewRequests {
			t.Fatalf("trial %d: %d new requests under full, %d under decorrelated", i, a[i].Open.NewRequests, b[i].Open.NewRequests)
		}
		if x, y := *a[i].Open, *c[i].Open; a[i].Calls != c[i].Calls || x.GaveUp != y.GaveUp || x.RecoveryTicks != y.RecoveryTicks || x.Backlog != y.Backlog || x.Retries != y.Retries {
			t.Fatalf("trial %d differs between 1 and 3 workers", i)
		}
		differ = differ || a[i].Calls != b[i].Calls
	}
	if !differ {
		t.Fatal("a different policy and bucket changed no trial's calls")
	}
}

// The stack's simulated bottom calls follow the closed form exactly where
// there is no chance (every call fails, or none does) and in law otherwise:
// a truncated geometric on 1…A with A = ∏ attempts, checked cell by cell
// and in mean at 4σ.
func TestStackMatchesClosedForm(t *testing.T) {
	sc := model.Default()
	for _, attempts := range [][]int{{3, 3, 3, 3, 3}, {3, 3, 3}, {4, 4, 4}, {3, 1, 1, 1, 1}} {
		a := int64(model.TotalAttempts(attempts))
		for _, p := range []float64{0, 1} {
			for _, x := range playWork(t, sc, Layers{p, attempts}, Options{Trials: 100, Seed: 1}) {
				want := int64(model.Amplification(p, attempts))
				if x.Calls != want || (x.Served == 1) != (p == 0) {
					t.Fatalf("%v p=%g: %d bottom calls, want %d", attempts, p, x.Calls, want)
				}
			}
		}
		if p := 1.0; a != int64(model.Amplification(p, attempts)) {
			t.Fatalf("closed form at p=1: %g, want %d", model.Amplification(p, attempts), a)
		}
	}
	attempts := []int{2, 3}
	const p, trials = 0.7, 200000
	seen := map[int64]float64{}
	var sum, sum2 float64
	for _, x := range playWork(t, sc, Layers{p, attempts}, Options{Trials: trials, Seed: 5}) {
		seen[x.Calls]++
		sum += float64(x.Calls)
		sum2 += float64(x.Calls * x.Calls)
	}
	mean := sum / trials
	se := math.Sqrt((sum2/trials - mean*mean) / trials)
	if want := model.Amplification(p, attempts); math.Abs(mean-want) > 4*se {
		t.Errorf("mean bottom calls %g, closed form %g (4σ = %g)", mean, want, 4*se)
	}
	for x := int64(1); x <= 6; x++ {
		q := math.Pow(p, float64(x-1)) * (1 - p)
		if x == 6 {
			q = math.Pow(p, 5)
		}
		if got, sd := seen[x]/trials, math.Sqrt(q*(1-q)/trials); math.Abs(got-q) > 4*sd {
			t.Errorf("P(%d bottom calls) = %g, want %g (4σ = %g)", x, got, q, 4*sd)
		}
	}
	if len(seen) != 6 {
		t.Errorf("bottom calls took values %v, want 1…6", seen)
	}
}
