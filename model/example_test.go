package model_test

import (
	"fmt"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
)

// A policy name is a textbook policy or a library preset; anything else is
// refused with the list of valid names, and a typo with the name it
// resembles.
func ExampleParseKind() {
	for _, s := range []string{"full", "grpc-retry", "jitter", "fulll", "cenkalti-v3"} {
		k, err := policy.ParseKind(s)
		fmt.Printf("%q: preset %t, err %v\n", k, k.IsPreset(), err)
	}
	// Output:
	// "full": preset false, err <nil>
	// "grpc-retry": preset true, err <nil>
	// "": preset false, err policy must be one of none, fixed, expo, full, equal, decorrelated, poly, loglog, sawtooth, window, or a library preset (herd presets lists them), got "jitter"
	// "": preset false, err policy must be one of none, fixed, expo, full, equal, decorrelated, poly, loglog, sawtooth, window, or a library preset (herd presets lists them), got "fulll" (did you mean full?)
	// "": preset false, err policy must be one of none, fixed, expo, full, equal, decorrelated, poly, loglog, sawtooth, window, or a library preset (herd presets lists them), got "cenkalti-v3" (did you mean cenkalti-v4?)
}

// Every policy's rule starts with its formula.
func ExampleKind_Formula() {
	for _, k := range policy.Kinds() {
		fmt.Printf("%-12s %s\n", k, k.Formula())
	}
	// Output:
	// none         0: the retry follows at once, in the next tick
	// fixed        fixed_delay
	// expo         d_n = min(cap, base·2ⁿ)
	// full         U(0, d_n)
	// equal        d_n/2 + U(0, d_n/2)
	// decorrelated min(cap, U(base, 3·prev)), prev starts at base and keeps the unrounded delay
}

// Full jitter with the seed's base 1 and cap 32 draws retry n's delay
// uniformly below d_n = min(32, 2ⁿ); from retry 5 on the law stops
// changing, so the policy has 5 retry classes and its largest delay is 32.
func ExamplePolicy_Law() {
	p := policy.Policy{Kind: policy.Full, Base: 1, Cap: 32}
	for n := 1; n <= 6; n++ {
		l := p.Law(n, p.Start())
		fmt.Printf("retry %d: U(%g, %g)\n", n, l.Lo, l.Hi)
	}
	fmt.Println("classes", p.Classes(), "largest delay", p.MaxDelay(), "random", p.Random())
	// Output:
	// retry 1: U(0, 2)
	// retry 2: U(0, 4)
	// retry 3: U(0, 8)
	// retry 4: U(0, 16)
	// retry 5: U(0, 32)
	// retry 6: U(0, 32)
	// classes 5 largest delay 32 random true
}

// A preset's delays are the library's own, in seconds; the policy's tick
// turns them into ticks. grpc-go's connection backoff waits exactly 1 s
// before the first reconnection, which is 10 ticks of 100 ms.
func ExamplePolicy_Law_preset() {
	ps, _ := policy.LookupPreset("grpc-go-connect")
	p := ps.Policy(100 * time.Millisecond)
	for n := 1; n <= 3; n++ {
		l := p.Law(n, p.Start())
		fmt.Printf("retry %d: [%.4g, %.4g] %s\n", n, l.Lo, l.Hi, p.Unit())
	}
	// Output:
	// retry 1: [10, 10] ticks of 100ms
	// retry 2: [12.8, 19.2] ticks of 100ms
	// retry 3: [20.48, 30.72] ticks of 100ms
}

// Equal jitter's retry 3 waits d_3/2 + U(0, d_3/2) = U(4, 8) with base 1:
// half its mass lies below 6, and the clamp makes 8 certain.
func ExampleLaw_CDF() {
	l := policy.Policy{Kind: policy.Equal, Base: 1, Cap: 32}.Law(3, 1)
	for _, x := range []float64{3, 4, 6, 7, 8} {
		fmt.Printf("P(delay ≤ %g) = %g\n", x, l.CDF(x))
	}
	// Output:
	// P(delay ≤ 3) = 0
	// P(delay ≤ 4) = 0
	// P(delay ≤ 6) = 0.5
	// P(delay ≤ 7) = 0.75
	// P(delay ≤ 8) = 1
}

// Rounding half to even turns full jitter's U(0, 4) into whole ticks:
// (0, 1.5) → 1 (a wait is at least one tick), [1.5, 2.5] → 2,
// (2.5, 3.5) → 3 and [3.5, 4) → 4.
func ExampleRounding_Waits() {
	l := policy.Policy{Kind: policy.Full, Base: 1, Cap: 32}.Law(2, 1)
	w := policy.HalfEven.Waits(l)
	for t := w.Min; t <= w.Max(); t++ {
		fmt.Printf("wait %d: %g\n", t, w.Prob(t))
	}
	// Output:
	// wait 1: 0.375
	// wait 2: 0.25
	// wait 3: 0.25
	// wait 4: 0.125
}

// Validate names the flag of the first field out of range, so that a
// command can tell its user what to change. A preset whose delays outgrow
// what the engines follow at a short tick is refused by its retry limit,
// with the most retries that fit.
func ExampleScenario_Validate() {
	sc := model.Default()
	sc.Clients = 0
	fmt.Println(sc.Validate())

	ps, _ := policy.LookupPreset("cenkalti-v4")
	sc = model.Default()
	sc.Policy = ps.Policy(time.Microsecond)
	fmt.Println(sc.Validate())
	// Output:
	// --clients must be an integer in [1, 1099511627776], got 0
	// --retries must be an integer in [1, 7] for preset cenkalti-v4 with a tick of 1µs (after retry 7 its delays exceed 1e+07 ticks; a longer --tick or window allows more), got 0 (no limit)
}

// The seed's scenario with exponential backoff and no jitter: 100 clients
// against a capacity of 10 move as one wave that loses 10 clients a round,
// so there are R = 10 waves and calls = R·N − k·R(R−1)/2 = 1000 − 450. The
// waves are sent at ticks 0, 2, 6, 14, 30, 62, 94, 126, 158, 190 (waits 2,
// 4, 8, 16, then the cap 32), and completion is 190 + 1.
func ExampleClosedForm() {
	sc := model.Default()
	sc.Policy.Kind = policy.Expo
	c, err := solve.ClosedForm(sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("waves", c.Rounds, "calls", c.Calls, "completion", c.Completion)
	fmt.Println("last wave", c.Waves[len(c.Waves)-1])
	// Output:
	// waves 10 calls 550 completion 191
	// last wave {190 10 10}
}

// The exact chain of a tiny cohort: 2 clients, capacity 1, fixed delay 2.
// Tick 0 serves one; the other waits round(2) = 2 ticks and is served at
// tick 2, so calls are 3 and completion 3 with certainty.
func ExampleMarkovChain() {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Policy.Kind = 2, 1, policy.Fixed
	m, err := solve.MarkovChain(sc, solve.MarkovOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("calls %g ± %g, completion %g ± %g, finished %g\n",
		m.Calls.Mean, m.Calls.SD, m.Completion.Mean, m.Completion.SD, m.Finished())
	// Output:
	// calls 3 ± 0, completion 3 ± 0, finished 1
}
