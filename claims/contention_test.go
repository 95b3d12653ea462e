package claims

import (
	"context"
	"strings"
	"testing"

	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
)

// shortLadder runs f with the contention ladder cut to n = 32…2048, judged
// from 128, so that the rules can be exercised in seconds.
func shortLadder(t *testing.T, f func()) {
	t.Helper()
	ladder, judged := ContentionLadder, ContentionJudged
	ContentionLadder, ContentionJudged = []int{32, 64, 128, 256, 512, 1024, 2048}, 128
	defer func() { ContentionLadder, ContentionJudged = ladder, judged }()
	f()
}

// TestThetaCheckCatchesAWrongExponent plants a policy whose makespan has
// another order in place of binary exponential backoff: sawtooth backoff,
// whose makespan is Θ(n) (Bender et al.), judged against n lg n must
// fail, while binary exponential backoff itself must not.
func TestThetaCheckCatchesAWrongExponent(t *testing.T) {
	shortLadder(t, func() {
		run := &contentionRun{ctx: context.Background(), opt: montecarlo.Options{Trials: ContentionTrials, Seed: 1}, ladder: map[policy.Policy][]batchRung{}}
		beb := thetaForms[0]
		planted := beb
		planted.policy = policy.Policy{Kind: policy.Sawtooth}
		got, err := run.theta(planted)
		if err != nil {
			t.Fatal(err)
		}
		if got.Verdict != Fails {
			t.Errorf("sawtooth backoff judged against n lg n: %s (%s; %s), want fails", got.Verdict, got.KeyEvidence, got.Condition)
		}
		t.Logf("planted: %s, %s", got.Verdict, got.KeyEvidence)
		if got, err = run.theta(beb); err != nil || got.Verdict == Fails {
			t.Errorf("binary exponential backoff against n lg n: %s (%s), %v", got.Verdict, got.KeyEvidence, err)
		}
		for _, r := range run.ladder[beb.policy] {
			if r.censored > 0 {
				t.Errorf("n = %d: %d trials censored at the default horizon", r.n, r.censored)
			}
		}
	})
}

// TestStationRuleCatchesAStablePolicy plants quadratic backoff in place of
// binary exponential backoff in the instability claim: stable at
// λ = 0.65, it must make the claim fail.
func TestStationRuleCatchesAStablePolicy(t *testing.T) {
	planted := stationBEB
	planted.policy = stationPoly.policy
	planted.rates, planted.shown = []float64{0.65, 0.75}, nil
	got, err := stationClaim(context.Background(), montecarlo.Options{Trials: 10, Seed: 1}, planted)
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != Fails {
		t.Errorf("quadratic backoff in the instability claim: %s, want fails (%v)", got.Verdict, got.Evidence)
	}
}

// TestStationsEngine checks the stations engine on what can be computed:
// one station never collides, so it serves every message but the one of
// its last tick; the trials do not depend on the workers; a rate above one
// message per station per tick is refused.
func TestStationsEngine(t *testing.T) {
	sc := stationScenario(stationBEB.policy)
	sc.Clients = 1
	ts, err := montecarlo.RunStations(context.Background(), sc, montecarlo.Stations{Rate: 0.5, Ticks: 10_000}, montecarlo.Options{Trials: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range ts {
		if tr.Backlog > 1 || tr.Arrived < 4500 || tr.Arrived > 5500 {
			t.Errorf("trial %d: one station at λ = 0.5 arrived %d, backlog %d", i, tr.Arrived, tr.Backlog)
		}
	}
	again, _ := montecarlo.RunStations(context.Background(), sc, montecarlo.Stations{Rate: 0.5, Ticks: 10_000}, montecarlo.Options{Trials: 20, Seed: 3, Workers: 1})
	for i := range ts {
		if ts[i] != again[i] {
			t.Fatalf("trial %d differs with one worker: %+v vs %+v", i, ts[i], again[i])
		}
	}
	sc.Policy.Kind = policy.Fixed
	if _, err := montecarlo.RunStations(context.Background(), sc, montecarlo.Stations{Rate: 2, Ticks: 100}, montecarlo.Options{Trials: 1}); err == nil {
		t.Error("a rate above one message per station per tick was accepted")
	}
}

// The stations rule reads a transient as pre-asymptotic, not as a
// failure: quadratic backoff at λ = 0.9 judged over runs of 20,000 ticks
// still fills its queues, and the doublings of time show the growth
// falling toward stability.
func TestStationRuleReadsATransientAsPreAsymptotic(t *testing.T) {
	ticks := StationTicks
	StationTicks = 20_000
	defer func() { StationTicks = ticks }()
	s := stationPoly
	s.rates = []float64{0.9}
	got, err := stationClaim(context.Background(), montecarlo.Options{Trials: ContentionTrials, Seed: 1}, s)
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != Inconclusive || !strings.HasPrefix(got.Condition, "pre-asymptotic") {
		t.Errorf("quadratic backoff at λ = 0.9 over 20,000 ticks: %s (%s)", got.Verdict, got.Condition)
	}
	t.Logf("%s: %s", got.Verdict, got.Condition)
}

// The optimality comparison says where it holds: planted batches in which
// loglog-iterated backoff is slower than quadratic backoff up to n = 2048
// and faster from 4096 give "holds only when n ≥ 4096"; faster everywhere,
// holds; slower at the top and not falling, fails.
func TestBestMonotoneNamesItsRegime(t *testing.T) {
	run := func(ratio func(n int) float64) Result {
		r := &contentionRun{ctx: context.Background(), forms: thetaForms, ladder: map[policy.Policy][]batchRung{}}
		for i, f := range thetaForms {
			var rungs []batchRung
			for _, n := range ContentionLadder {
				b := batchRung{n: n}
				for k := range 40 {
					x := float64(n) * (1 + 0.01*float64(k%5))
					if i == 2 {
						x *= ratio(n)
					}
					b.makespan = append(b.makespan, x)
				}
				rungs = append(rungs, b)
			}
			r.ladder[f.policy] = rungs
		}
		c, err := r.best()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := run(func(n int) float64 { return map[bool]float64{true: 1.2, false: 0.8}[n <= 2048] })
	if c.Verdict != HoldsOnlyWhen || !strings.HasPrefix(c.Condition, "n ≥ 4096") {
		t.Errorf("slower up to 2048: %s (%s)", c.Verdict, c.Condition)
	}
	if c := run(func(int) float64 { return 0.8 }); c.Verdict != Holds {
		t.Errorf("faster everywhere: %s (%s)", c.Verdict, c.Condition)
	}
	if c := run(func(int) float64 { return 1.2 }); c.Verdict != Fails {
		t.Errorf("slower everywhere: %s (%s)", c.Verdict, c.Condition)
	}
}
