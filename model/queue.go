package model

import (
	"fmt"
)

// Queue is the FIFO queueing server with client timeouts.
const Queue Server = 4

type queue struct{}

func (queue) Name() string        { return "queue" }
func (queue) Served(m, k int) int { return upTo(m, k) }
func (queue) Plays() Plays {
	return Plays{Cohort: QueueEngine, OpenLoop: true, Queues: true, Models: []string{"chain"},
		Unmodelled: "the queue server's requests wait and time out, which only the queue chain follows; use --method chain"}
}

// Words says the queue's limit and timeout.
func (queue) Words(s Scenario) string {
	limit, timeout := "unbounded", "no timeout"
	if l := s.Queue.Limit; l > 0 {
		limit = fmt.Sprintf("at most %d queued", l)
	}
	if t := s.Queue.Timeout; t > 0 {
		timeout = fmt.Sprintf("clients time out after %d ticks", t)
	}
	return fmt.Sprintf("FIFO queue %s, %s", limit, timeout)
}
func (queue) Brief(s Scenario) string {
	b := fmt.Sprintf(" T=%d L=%d", s.Queue.Timeout, s.Queue.Limit)
	if s.Policy.Retries > 0 {
		b += fmt.Sprintf(" R=%d", s.Policy.Retries)
	}
	return b
}
func (queue) horizon(s Scenario) int { return s.queueHorizon() }
func (queue) validate(s Scenario, bad badField) error {
	q := s.Queue
	switch {
	case q.Limit < 0 || q.Limit > MaxQueueLimit:
		return bad("queue-limit", fmt.Sprintf("0 (unbounded) or an integer in [1, %d] requests", int64(MaxQueueLimit)), q.Limit)
	case q.Timeout < 0 || q.Timeout > MaxTimeout:
		return bad("timeout", fmt.Sprintf("0 (never) or an integer in [1, %d] ticks", MaxTimeout), q.Timeout)
	}
	return nil
}

// Queueing is the queue server's parameters (Server Queue). On the queue
// server requests wait in a FIFO queue and the server completes k of them
// per tick, so latency grows with load, and
// clients that time out retry while the server still does the work they
// abandoned. It is the setting of the metastable-failure literature (a
// trigger fills the queue, waits pass the timeout, every response comes too
// late, retries keep the queue full after the trigger is gone).
//
// A tick t of the queue server, in this order (the engine, montecarlo's
// QueueEngine, and the exact chain, QueueChain, follow it line by line):
//
//  1. The tick's sends — first sends, retries, new arrivals — reach the
//     server in a uniformly random order.
//  2. Each joins the tail of the queue, unless the queue already holds
//     Limit requests (Limit > 0; abandoned ones count: they are still
//     there): then it is rejected at once and its attempt fails at tick t.
//  3. The server completes the first c requests at the head of the queue,
//     c = k (or the outage's capacity in open-loop traffic). A request sent
//     at tick s and completed at tick t has response time t − s + 1 ticks,
//     its wait plus one tick of service. It succeeds if its client still
//     waits for it, and is wasted work if the client abandoned it.
//  4. A client whose attempt sent at tick s has had no response by the end
//     of tick s + T − 1 (T = Timeout > 0: the response time would pass T)
//     abandons it: the attempt fails at tick t = s + T − 1, and the request
//     stays in the queue, to be served later as wasted work.
//  5. Every failed attempt (rejected or timed out) is retried as on the
//     other servers: the client draws δ from its policy and sends again at
//     t + max(1, round(δ)), unless its retry limit or a control stops it.
//
// Because requests are served in order of sending and an attempt is
// abandoned exactly when it has waited T ticks, the abandoned requests of a
// queue are always at its head. A cohort's trial ends when every client is
// served or gave up; the abandoned requests still queued then are served
// after it, and count as wasted work.
//
// Limit and Timeout are 0 on every other server.
type Queueing struct {
	// Limit is the most requests the queue holds; 0 means unbounded.
	Limit int
	// Timeout is how many ticks of response time a client waits for before
	// it abandons an attempt; 0 means it waits for ever.
	Timeout int
}

// Limits on the queue server's parameters.
const (
	// MaxQueueLimit bounds Limit: one queued request takes 8 bytes.
	MaxQueueLimit = 1 << 32
	// MaxTimeout bounds Timeout: the engine keeps one index per tick of it.
	MaxTimeout = 1_000_000
	// MaxQueueLive bounds an unbounded queue: a trial whose queue would
	// hold more requests stops there, censored (800 MB per engine).
	MaxQueueLive = 100_000_000
)

// queueHorizon is the queue server's default horizon. Without a timeout
// every request served is one a client waits for, so whenever a client is
// pending either the queue is serving one or a send comes within the
// largest delay and is served in its tick (an empty queue always admits):
// some client is served every MaxDelayTicks + 1 ticks, and the bound is
// W − 1 + N·(MaxDelayTicks + 1), as on the capacity server. With a timeout
// a cohort can stay stuck for ever (every response late), so the horizon
// is at least 10,000 ticks, as on the collision server.
func (s Scenario) queueHorizon() int {
	h := s.everyTickServes(1)
	if s.Queue.Timeout > 0 {
		h = max(h, 10000)
	}
	return h
}

// Timeouts reports whether the scenario's clients abandon slow attempts.
func (s Scenario) Timeouts() bool { return s.Queues() && s.Queue.Timeout > 0 }

// ServiceDelay is the response time, in ticks, of the last of n requests
// that reach an empty queue server together: ⌈n/k⌉ (one tick of service
// for the first k, one more for each k after). A timeout below it is what
// makes a burst of n abandon attempts and waste work.
func (s Scenario) ServiceDelay(n int) int {
	return int((int64(n) + int64(s.Capacity) - 1) / int64(s.Capacity))
}

// Help is the server in a paragraph of herd simulate's help.
func (queue) Help() string {
	return `--server queue makes requests wait in a FIFO queue served k per tick
(--queue-limit bounds it; a send over the limit is rejected at once), and
--timeout T makes a client abandon an attempt without a response within T
ticks and retry, while the server still serves the abandoned request
(wasted work). Both the cohort and --rate traffic then also report goodput
(useful completions per tick), wasted work, timeouts, rejections and the
response time of successful attempts; after an outage a full queue whose
waits pass the timeout can keep itself full although λ < k.`
}
