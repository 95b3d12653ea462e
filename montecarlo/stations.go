package montecarlo

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/herdlab/herd/model"
)

// Stations is the multiple-access channel of Håstad, Leighton and Rogoff
// ("Analysis of backoff protocols for multiple access channels", SIAM J.
// Comput. 1996): N stations (the scenario's Clients), each holding a FIFO
// queue of messages; at each tick each station receives a new message with
// probability Rate/N (total rate λ = Rate), and only the message at the head
// of a queue contends. A head that has not collided yet sends at once (at
// the tick it arrives, or the tick after the message before it was
// served); a head that has collided b times sends in each later tick with
// probability 1/W_b — its wait is geometric with mean W_b — where W_b is the
// largest delay of retry b under the scenario's policy (full: the ceiling
// min(cap, base·2^b), so that base 1 is their binary exponential backoff,
// sending with probability 2^−b; poly: its window ⌈base·b^r⌉, their
// polynomial backoff). The server is the scenario's collision server: a
// tick with at most k sends serves them all, one with more serves none.
type Stations struct {
	Rate  float64 // λ: new messages per tick, over all stations
	Ticks int     // length of a trial
}

// Limits of a stations run.
const (
	MaxStations     = 4096
	MaxStationTicks = 1e8
)

// StationTrial is what one trial of Stations records.
type StationTrial struct {
	Arrived, Served int64
	// HalfBacklog and Backlog are the messages queued after tick Ticks/2
	// and after the last tick: a stable channel's backlog stays bounded, an
	// unstable one's grows in proportion to time.
	HalfBacklog, Backlog int64
}

// Growth is the backlog's growth per tick over the trial's second half.
func (t StationTrial) Growth(ticks int) float64 {
	return float64(t.Backlog-t.HalfBacklog) / float64(ticks-ticks/2)
}

// validate checks the run against the scenario.
func (s Stations) validate(sc model.Scenario) error {
	switch {
	case sc.Server != model.Collision:
		return &model.FieldError{Flag: "server", Valid: "collision for stations with queues", Got: sc.Server.String()}
	case sc.Clients < 1 || sc.Clients > MaxStations:
		return &model.FieldError{Flag: "clients", Valid: fmt.Sprintf("a number of stations in [1, %d]", MaxStations), Got: fmt.Sprint(sc.Clients)}
	case !(s.Rate > 0) || s.Rate > float64(sc.Clients):
		return &model.FieldError{Flag: "rate", Valid: fmt.Sprintf("a rate in (0, %d] (at most one message per station per tick)", sc.Clients), Got: fmt.Sprint(s.Rate)}
	case s.Ticks < 2 || s.Ticks > MaxStationTicks:
		return &model.FieldError{Flag: "ticks", Valid: fmt.Sprintf("an integer in [2, %d]", int(MaxStationTicks)), Got: fmt.Sprint(s.Ticks)}
	case sc.Policy.Stateful() || sc.Policy.Retries > 0 || sc.Policy.MaxElapsed > 0:
		return &model.FieldError{Flag: "policy", Valid: "a policy whose delay depends on the retry number alone, without give-up limits, for stations", Got: sc.Policy.Describe()}
	}
	return sc.Validate()
}

// RunStations plays opt.Trials trials of stations on sc, trial i on
// Stream(opt.Seed, sc, i), and returns them in trial order: the same seed
// gives the same trials whatever the workers.
func RunStations(ctx context.Context, sc model.Scenario, s Stations, opt Options) ([]StationTrial, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if err := s.validate(sc); err != nil {
		return nil, err
	}
	// W_b for b = 1…c, then W_c for every later b.
	c := max(1, sc.Policy.Classes())
	windows := make([]float64, c+1)
	for b := 1; b <= c; b++ {
		windows[b] = math.Max(1, sc.Policy.Law(b, sc.Policy.Start()).Sup())
	}
	out := make([]StationTrial, opt.Trials)
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, opt.Trials) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = playStations(Stream(opt.Seed, sc, i), sc, s, windows)
			}
		}()
	}
	var err error
	for i := range opt.Trials {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return out, err
}

// playStations plays one trial.
func playStations(src *rand.PCG, sc model.Scenario, s Stations, windows []float64) StationTrial {
	n, k := sc.Clients, sc.Capacity
	p := s.Rate / float64(n)
	queue := make([]int64, n) // messages queued at each station, the head included
	tries := make([]int, n)   // collisions of the head
	at := make([]int, n)      // tick of the head's next send
	var t StationTrial
	sends := make([]int, 0, n)
	for tick := range s.Ticks {
		for i := range n {
			if uniform(src) < p {
				t.Arrived++
				queue[i]++
				if queue[i] == 1 {
					tries[i], at[i] = 0, tick
				}
			}
		}
		sends = sends[:0]
		for i := range n {
			if queue[i] > 0 && at[i] == tick {
				sends = append(sends, i)
			}
		}
		if len(sends) <= k {
			for _, i := range sends {
				t.Served++
				queue[i]--
				tries[i], at[i] = 0, tick+1
			}
		} else {
			for _, i := range sends {
				tries[i]++
				w := windows[min(tries[i], len(windows)-1)]
				at[i] = tick + geometric(src, w)
			}
		}
		if tick == s.Ticks/2-1 {
			t.HalfBacklog = t.Arrived - t.Served
		}
	}
	t.Backlog = t.Arrived - t.Served
	return t
}

// geometric is a wait of j ≥ 1 ticks with probability (1 − 1/w)^(j−1)/w:
// the tick of the first success of a coin of probability 1/w per tick.
func geometric(src *rand.PCG, w float64) int {
	if w <= 1 {
		return 1
	}
	u := 1 - uniform(src) // in (0, 1]
	return 1 + int(math.Floor(math.Log(u)/math.Log1p(-1/w)))
}
