package model

import (
	"fmt"
	"strings"

	"github.com/herdlab/herd/policy"
)

// Server names a kind of server; its behaviour is its ServerVariant.
type Server int

// A ServerVariant is one kind of server: how it serves the arrivals of a
// tick, which of the scenario's fields belong to it, its default horizon,
// its words, and what can play it. Each lives in its own file
// (capacity.go, collision.go, occ.go, flaky.go, queue.go) and is
// registered once, in servers; adding a server is one file and one line
// there.
type ServerVariant interface {
	// Name is the server's spelling on the command line and in JSON.
	Name() string
	// Served is how many of m arrivals in one tick a server of capacity k
	// serves.
	Served(m, k int) int
	// Plays says which engines and analytical models follow it.
	Plays() Plays
	// Words are the server's own parameters in words ("" when it has
	// none beyond its capacity), and Brief the same for a table cell.
	Words(s Scenario) string
	Brief(s Scenario) string
	// validate checks the fields that belong to the server, and refuses
	// those that belong to other servers.
	validate(s Scenario, bad badField) error
	// horizon is the default horizon of a tick-model scenario on it.
	horizon(s Scenario) int
}

// badField makes a *FieldError for a field's flag, its valid range and
// the value given.
type badField = func(flag, valid string, got any) error

// Plays is what can play a scenario on one server.
type Plays struct {
	// Cohort is the Monte Carlo engine of the synchronized cohort.
	Cohort CohortEngine
	// OpenLoop and ClosedLoop: the request engine plays open-loop
	// (--rate) and closed-loop (--loop closed) traffic on it.
	OpenLoop, ClosedLoop bool
	// ContinuousTime: it has a window in continuous time (--time
	// continuous), where the window engine plays it.
	ContinuousTime bool
	// Milliseconds: it has no ticks; its times are in milliseconds.
	Milliseconds bool
	// Models are the analytical models of its cohort (solve's methods).
	Models []string
	// Queues: requests wait in a queue and can time out.
	Queues bool
	// RejectCost: a refused send costs it a share of a tick.
	RejectCost bool
	// Unmodelled is why the cohort's models (closed, markov, meanfield) do
	// not follow it, when they do not.
	Unmodelled string
	// FailureRate: it fails calls at random whatever the load.
	FailureRate bool
}

// CohortEngine is the family of engines that plays a server's cohort.
type CohortEngine int

const (
	// NoCohort: the server is played by traffic only (--rate, --loop closed).
	NoCohort CohortEngine = iota
	// TickEngines: the per-client and count engines, tick by tick.
	TickEngines
	// EventEngine: an event engine of its own, in continuous time.
	EventEngine
	// QueueEngine: the queue engine.
	QueueEngine
)

// servers is the registry of server variants, by kind.
var servers = []ServerVariant{
	Capacity:    capacity{},
	Collision:   collision{},
	OCC:         occ{},
	Flaky:       flaky{},
	Queue:       queue{},
	TokenBucket: tokenBucket{},
	GCRA:        gcra{},
	Service:     service{},
}

// Variant is the server's variant.
func (s Server) Variant() ServerVariant {
	if s < 0 || int(s) >= len(servers) {
		return nil
	}
	return servers[s]
}

func (s Server) String() string {
	if v := s.Variant(); v != nil {
		return v.Name()
	}
	return fmt.Sprintf("Server(%d)", int(s))
}

// ServerNames lists the valid spellings.
func ServerNames() []string {
	names := make([]string, len(servers))
	for i, v := range servers {
		names[i] = v.Name()
	}
	return names
}

// CohortServerNames are the servers a synchronized cohort runs on: those
// with a cohort engine of their own, or a window the window engine plays
// in continuous time. The others (flaky, service) are played by traffic.
func CohortServerNames() []string {
	var names []string
	for _, v := range servers {
		if p := v.Plays(); p.Cohort != NoCohort || p.ContinuousTime {
			names = append(names, v.Name())
		}
	}
	return names
}

// ParseServer reads one of ServerNames.
func ParseServer(s string) (Server, error) {
	for i, v := range servers {
		if s == v.Name() {
			return Server(i), nil
		}
	}
	return 0, fmt.Errorf("server must be one of %s, got %q", strings.Join(ServerNames(), ", "), s)
}

// Plays is what can play the scenario's server.
func (s Scenario) Plays() Plays { return s.Server.Variant().Plays() }

// Served is how many of m arrivals in one tick the scenario's server
// serves.
func (s Scenario) Served(m int) int { return s.Server.Variant().Served(m, s.Capacity) }

// Queues reports whether the scenario's server queues requests.
func (s Scenario) Queues() bool { return s.Plays().Queues }

// Models reports whether the analytical model method follows the
// scenario's server.
func (s Scenario) Models(method string) bool {
	for _, m := range s.Plays().Models {
		if m == method {
			return true
		}
	}
	return false
}

// policyDefaults is a server whose textbook policies have parameters of
// its own (in its own units).
type policyDefaults interface{ policyDefaults(p *policy.Policy) }

// upTo is the capacity rule: min(m, k).
func upTo(m, k int) int { return min(m, k) }

// validateServer refuses the fields of servers other than the scenario's,
// then lets its server check its own.
func (s Scenario) validateServer(bad badField) error {
	pl := s.Plays()
	switch {
	case !pl.FailureRate && s.FailureRate != 0:
		return bad("failure-rate", fmt.Sprintf("0 unless --server flaky (the %s server's failures come from its load)", s.Server), s.FailureRate)
	case !pl.Queues && s.Queue.Limit != 0:
		return bad("queue-limit", "0 unless --server queue", s.Queue.Limit)
	case !pl.Queues && s.Queue.Timeout != 0:
		return bad("timeout", "0 unless --server queue (the other servers answer every request within its tick)", s.Queue.Timeout)
	}
	if err := s.validateLimiting(bad); err != nil {
		return err
	}
	return s.Server.Variant().validate(s, bad)
}

// ServersHelp is the paragraphs of herd simulate's help that say the
// servers with parameters of their own, in the registry's order.
func ServersHelp() string {
	var ps []string
	for _, v := range servers {
		if h, ok := v.(interface{ Help() string }); ok {
			ps = append(ps, h.Help())
		}
	}
	return strings.Join(ps, "\n\n")
}
