package control

import (
	"errors"
	"github.com/herdlab/herd/model"
	"math"
	"math/rand/v2"
	"testing"
)

// Goodput falls linearly with overload at rejection cost c: s + c·(m − s) ≤ k.
func TestGoodput(t *testing.T) {
	tr := model.Traffic{RejectCost: 0.1}
	for _, c := range []struct{ m, want int }{
		{50, 50}, {100, 100}, {101, 99}, {200, 88}, {500, 55}, {1000, 0}, {5000, 0},
	} {
		if got := tr.Goodput(model.Capacity, 100, c.m); got != c.want {
			t.Errorf("c=0.1 k=100 m=%d: goodput %d, want %d", c.m, got, c.want)
		}
		if got := tr.Goodput(model.Capacity, 100, c.m); got+int(math.Ceil(0.1*float64(c.m-got)-1e-9)) > 100 && got > 0 {
			t.Errorf("m=%d: serving %d overspends the capacity", c.m, got)
		}
	}
	if g := (model.Traffic{}).Goodput(model.Capacity, 100, 1e6); g != 100 {
		t.Errorf("capacity server: goodput %d under overload, want 100", g)
	}
	if g := (model.Traffic{}).Goodput(model.Collision, 100, 101); g != 0 {
		t.Errorf("collision server: goodput %d under overload, want 0", g)
	}
	if g := (model.Traffic{RejectCost: 1}).Goodput(model.Capacity, 100, 101); g != 0 {
		t.Errorf("reject cost 1: goodput %d, want 0", g)
	}
}

// The closed form: 3 tries at each of 5 layers is 243 at total failure, the
// seed guide's 3 layers of 3 tries 27, and 3 retries (4 tries) at 3 layers
// 64; with partial failure it is a geometric sum.
func TestAmplification(t *testing.T) {
	for _, c := range []struct {
		p        float64
		attempts []int
		want     float64
	}{
		{1, []int{3, 3, 3, 3, 3}, 243}, {1, []int{3, 3, 3}, 27}, {1, []int{4, 4, 4}, 64},
		{0, []int{3, 3, 3}, 1}, {0.5, []int{2, 2}, 1 + 0.5 + 0.25 + 0.125},
		{0.9, []int{3, 1, 1, 1, 1}, 1 + 0.9 + 0.81},
	} {
		if got := model.Amplification(c.p, c.attempts); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Amplification(%g, %v) = %g, want %g", c.p, c.attempts, got, c.want)
		}
	}
	if f := model.StackFailure(0.5, []int{2, 2}); f != 1.0/16 {
		t.Errorf("StackFailure = %g, want 1/16", f)
	}
	for _, bad := range []struct {
		p float64
		a []int
	}{{-0.1, []int{3}}, {1.1, []int{3}}, {math.NaN(), []int{3}}, {0.5, nil}, {0.5, []int{0}}, {0.5, make([]int, model.MaxLayers+1)}} {
		var fe *model.FieldError
		if err := model.ValidateStack(bad.p, bad.a); !errors.As(err, &fe) {
			t.Errorf("ValidateStack(%g, %v) = %v, want a FieldError", bad.p, bad.a, err)
		}
	}
}

// Every invalid control and traffic parameter is refused with its flag.
func TestControlsAndTrafficValidate(t *testing.T) {
	sc := model.Default()
	good := Controls{MaxAttempts: 3, Bucket: DefaultBucket(AWSBucket), Breaker: DefaultBreaker()}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for flag, c := range map[string]Controls{
		"max-attempts":      {MaxAttempts: -1},
		"bucket":            {Bucket: Bucket{Kind: "leaky"}},
		"bucket-capacity":   {Bucket: Bucket{Kind: AWSBucket, Capacity: -1, RetryCost: 5}},
		"bucket-cost":       {Bucket: Bucket{Kind: AWSBucket, Capacity: 5, RetryCost: 0}},
		"bucket-deposit":    {Bucket: Bucket{Kind: BrookerBucket, Capacity: 5, RetryCost: 1, Deposit: math.Inf(1)}},
		"breaker-window":    {Breaker: Breaker{Window: 65, Threshold: 0.5, MinCalls: 1, Cooldown: 1}},
		"breaker-threshold": {Breaker: Breaker{Window: 10, Threshold: 0, MinCalls: 1, Cooldown: 1}},
		"breaker-min-calls": {Breaker: Breaker{Window: 10, Threshold: 0.5, MinCalls: 11, Cooldown: 1}},
		"breaker-cooldown":  {Breaker: Breaker{Window: 10, Threshold: 0.5, MinCalls: 5, Cooldown: 0}},
	} {
		var fe *model.FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Flag != flag {
			t.Errorf("%+v: %v, want an error naming --%s", c, err, flag)
		}
	}
	if err := model.DefaultTraffic(sc.Capacity).Validate(sc); err != nil {
		t.Fatal(err)
	}
	coll := sc
	coll.Server = model.Collision
	win := sc
	win.FirstWindow = 5
	for _, c := range []struct {
		flag string
		sc   model.Scenario
		tr   model.Traffic
	}{
		{"rate", sc, model.Traffic{Rate: 0, Ticks: 10}},
		{"ticks", sc, model.Traffic{Rate: 1, Ticks: 0}},
		{"outage-start", sc, model.Traffic{Rate: 1, Ticks: 10, OutageStart: 10}},
		{"outage", sc, model.Traffic{Rate: 1, Ticks: 10, OutageStart: 5, OutageLength: 6}},
		{"outage-capacity", sc, model.Traffic{Rate: 1, Ticks: 10, OutageCapacity: sc.Capacity}},
		{"reject-cost", sc, model.Traffic{Rate: 1, Ticks: 10, RejectCost: 1.5}},
		{"reject-cost", coll, model.Traffic{Rate: 1, Ticks: 10, RejectCost: 0.5}},
		{"recovered-backlog", sc, model.Traffic{Rate: 1, Ticks: 10, RecoveredBacklog: -1}},
		{"first-window", win, model.Traffic{Rate: 1, Ticks: 10}},
	} {
		var fe *model.FieldError
		if err := c.tr.Validate(c.sc); !errors.As(err, &fe) || fe.Flag != c.flag {
			t.Errorf("%+v: %v, want an error naming --%s", c.tr, err, c.flag)
		}
	}
}

// An outage whose length would overflow start + length is refused, not
// wrapped into a negative end that passes the check.
func TestTrafficOutageOverflow(t *testing.T) {
	sc := model.Default()
	sc.Capacity = 5
	tr := model.Traffic{Rate: 2, Ticks: 300, OutageStart: 10, OutageLength: math.MaxInt}
	var fe *model.FieldError
	if err := tr.Validate(sc); !errors.As(err, &fe) || fe.Flag != "outage" {
		t.Fatalf("outage of %d ticks: %v; want a FieldError naming --outage", tr.OutageLength, err)
	}
}

// refusedSomeSend plays one control's state through random starts, sends,
// outcomes (mostly failures) and retries of a few clients, and reports
// whether it ever refused a send.
func refusedSomeSend(k Control) bool {
	sc := model.Default()
	const clients = 4
	s := k.NewState(sc, clients)
	s.Reset()
	rng := rand.New(rand.NewPCG(3, 9))
	draw := rng.Float64
	for tick := range 5000 {
		for c := range int32(clients) {
			s.Start(c, tick)
			if !s.Send(c, tick, draw) {
				return true
			}
			s.Outcome(c, tick, rng.Float64() < 0.9, rng.IntN(2) == 0)
			s.Retry(c, tick)
		}
	}
	return false
}

// TestRefusesSends: the controls RefusesSends names refuse sends under
// failures, and the others never do.
func TestRefusesSends(t *testing.T) {
	for _, c := range []Controls{
		{Bucket: DefaultBucket(AWSBucket)}, {Bucket: DefaultBucket(AWS2026Bucket)}, {Bucket: DefaultBucket(BrookerBucket)},
		{Bucket: DefaultBucket(BrookerSimBucket)}, {Breaker: DefaultBreaker()}, {SimBreaker: DefaultSimBreaker()},
		{Budget: DefaultRetryBudget()}, {Throttling: DefaultRetryThrottling()}, {Adaptive: DefaultAdaptiveThrottling()},
	} {
		l := c.List()
		if len(l) != 1 {
			t.Fatalf("%v: %d controls on", c, len(l))
		}
		if got, want := refusedSomeSend(l[0]), c.RefusesSends(); got != want {
			t.Errorf("%s: refused a send %v, RefusesSends %v", l[0].Name(), got, want)
		}
	}
}
