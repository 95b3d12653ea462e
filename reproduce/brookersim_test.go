package reproduce

import (
	"container/heap"
	"math"
	"math/rand/v2"
)

// brookerSim is an independent simulation of Brooker's simple_collapse_sim
// written from his script's rules without herd's engines: his per-client
// try counter, his timeouts armed at send + 3 s + the backoff, his spike
// generator that draws each gap at the rate of the current instant, his
// ramp that stops once its rate reaches 0. It returns his per-second
// counts of new requests, successes and retries (counted at the timeout).
type brookerSim struct {
	rng     *rand.Rand
	backoff bool
	ramp    bool
	events  simEvents
	seq     int
	conc    int
	starts  [80]int
	success [80]int
	retries [80]int
}

type simClient struct {
	retriesLeft, try int
	backoff          float64
}

type simEvent struct {
	t    float64
	seq  int
	kind int // 0 generate, 1 timeout, 2 server start, 3 server end, 4 answer
	c    *simClient
	try  int
}

type simEvents []simEvent

func (h simEvents) Len() int { return len(h) }
func (h simEvents) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].seq < h[j].seq
}
func (h simEvents) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *simEvents) Push(x any)   { *h = append(*h, x.(simEvent)) }
func (h *simEvents) Pop() any {
	o := *h
	e := o[len(o)-1]
	*h = o[:len(o)-1]
	return e
}

func (s *brookerSim) at(t float64, kind int, c *simClient, try int) {
	s.seq++
	heap.Push(&s.events, simEvent{t, s.seq, kind, c, try})
}

func (s *brookerSim) net(t float64) float64 { return t + s.rng.ExpFloat64()*0.1 }

func (s *brookerSim) sendReq(t, extra float64, c *simClient) {
	s.at(t+3+extra, 1, c, c.try)
	s.at(s.net(t)+extra, 2, c, c.try)
}

func bin(t float64) int { return min(int(t), 79) }

func runBrookerSim(seed uint64, ramp, backoff bool) *brookerSim {
	s := &brookerSim{rng: rand.New(rand.NewPCG(seed, 0x5eed)), ramp: ramp, backoff: backoff}
	s.at(0.01, 0, nil, 0)
	for len(s.events) > 0 {
		e := heap.Pop(&s.events).(simEvent)
		t := e.t
		if t >= 80 {
			break
		}
		switch e.kind {
		case 0:
			c := &simClient{retriesLeft: 3, backoff: 10}
			s.starts[bin(t)]++
			s.sendReq(t, 0, c)
			if s.ramp {
				if rate := 80 - 1.6*math.Abs(t-25); rate > 0 {
					s.at(t+s.rng.ExpFloat64()/rate, 0, nil, 0)
				}
			} else {
				rate := 40.0
				if t >= 20 && t <= 25 {
					rate = 80
				}
				s.at(t+s.rng.ExpFloat64()/rate, 0, nil, 0)
			}
		case 1:
			c := e.c
			if e.try != c.try {
				continue
			}
			c.retriesLeft--
			c.try++
			if c.retriesLeft > 0 {
				s.retries[bin(t)]++
				wait := 0.0
				if s.backoff {
					c.backoff *= 2
					wait = s.rng.Float64() * c.backoff
				}
				s.sendReq(t, wait, c)
			}
		case 2:
			s.conc++
			s.at(t+1+float64(s.conc)*0.01, 3, e.c, e.try)
		case 3:
			s.conc--
			s.at(s.net(t), 4, e.c, e.try)
		case 4:
			if e.try == e.c.try {
				s.success[bin(t)]++
				e.c.try++
			}
		}
	}
	return s
}

// window sums his counts over the seconds [from, to).
func (s *brookerSim) window(from, to int) (starts, success, retries int) {
	for i := from; i < to; i++ {
		starts += s.starts[i]
		success += s.success[i]
		retries += s.retries[i]
	}
	return
}
