package virtual

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"
)

// fixedDelays is a client that waits delays[i] before its retry i+1 and
// gives up when they run out: no library, no jitter.
func fixedDelays(delays ...time.Duration) Client {
	return func(call func() bool) bool {
		for i := 0; ; i++ {
			if call() {
				return true
			}
			if i == len(delays) {
				return false
			}
			time.Sleep(delays[i])
		}
	}
}

// The window server admits the first k calls of each window [iτ, (i+1)τ)
// from the start, in the order of the clients' numbers at one instant, and
// a call at the boundary belongs to the next window: computed by hand for
// 5 clients, k = 2, τ = 100 ms, delays 100 ms then 50 ms, then a round
// trip of 50 ms with delays 50 ms.
func TestWindowServerByHand(t *testing.T) {
	// t=0: clients 0, 1 served; 2, 3, 4 fail. t=100ms (window 1): 2, 3
	// served, 4 fails. t=150ms (window 1, full): 4 fails and gives up.
	got := Play(t, 5, 2, 100*time.Millisecond, 0, Alone(fixedDelays(100*time.Millisecond, 50*time.Millisecond)), nil)
	want := Trial{Calls: 9, GaveUp: 1, Completion: 100 * time.Millisecond,
		Served: []time.Duration{0, 0, 100 * time.Millisecond, 100 * time.Millisecond, -1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("delays 100 ms, 50 ms: got %+v, want %+v", got, want)
	}
	// With a round trip of 50 ms and delays of 50 ms, the retries reach
	// the server at 100 ms (window 1: 2, 3 served) and 200 ms (4 served).
	got = Play(t, 5, 2, 100*time.Millisecond, 50*time.Millisecond, Alone(fixedDelays(50*time.Millisecond, 50*time.Millisecond)), nil)
	want = Trial{Calls: 9, Completion: 200 * time.Millisecond,
		Served: []time.Duration{0, 0, 100 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip 50 ms, delays 50 ms: got %+v, want %+v", got, want)
	}
}

// Each library plays a case the same way twice from the same seeds, trial
// by trial, where its source can be seeded, and another way from other
// seeds where it draws at all.
func TestRerunsAreIdentical(t *testing.T) {
	for _, lib := range Libraries() {
		if lib.Source == Unseedable {
			continue
		}
		c := Case{Lib: lib, N: 200, K: 5, Tau: 100 * time.Millisecond}
		play := func(seed uint64) Trial { return Play(t, c.N, c.K, c.Tau, c.Trip(), lib.Env, c.setup(seed)) }
		a, b, other := play(c.seed(0)), play(c.seed(0)), play(c.seed(1))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs from one seed differ (calls %d and %d, completion %s and %s, or which client was served when)", lib.Preset, a.Calls, b.Calls, a.Completion, b.Completion)
		}
		if lib.Source != NoJitter && slices.Equal(a.Served, other.Served) {
			t.Errorf("%s: two seeds gave the same trial: the seed does not reach the library's jitter", lib.Preset)
		}
	}
}

// The Kolmogorov tail at the textbook critical values: Q(1.358) = 0.05 and
// Q(1.628) = 0.01.
func TestKolmogorovQ(t *testing.T) {
	for _, c := range []struct{ lambda, p float64 }{{1.358, 0.05}, {1.628, 0.01}, {0.5, 0.9639}} {
		if q := kolmogorovQ(c.lambda); math.Abs(q-c.p) > 5e-4 {
			t.Errorf("Q(%g) = %.5f, want %.4f", c.lambda, q, c.p)
		}
	}
}

// The judge: a mean agrees within 2% of herd's, or within z standard errors
// of the difference when they are wider, and not beyond.
func TestCompareMeans(t *testing.T) {
	herd := []float64{100, 100, 100, 100}
	if m := compareMeans("x", herd, []float64{102, 102, 102, 102}, 3); !m.Agree {
		t.Errorf("2%% apart: %+v, want agree", m)
	}
	if m := compareMeans("x", herd, []float64{103, 103, 103, 103}, 3); m.Agree {
		t.Errorf("3%% apart without scatter: %+v, want disagree", m)
	}
	// Runs 98, 110, 98, 110: mean 104, standard error 3.46; 3 of them
	// are wider than 2%.
	if m := compareMeans("x", herd, []float64{98, 110, 98, 110}, 3); !m.Agree {
		t.Errorf("4%% apart with SE %.2f: %+v, want agree", m.Tol/3, m)
	}
}
