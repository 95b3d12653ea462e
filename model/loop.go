package model

import "fmt"

// ClosedLoop is a closed loop of clients, beside the cohort (everyone
// fails together once) and the open loop (Traffic's Poisson arrivals):
// each of the scenario's Clients has one request at a time. Its first
// request is sent at a tick uniform on 0…FirstWindow−1; when a request
// ends — served, or given up by its policy or a control — at tick t, the
// client sends its next request at tick t + 1 + Think. So the load a
// closed loop offers falls when its requests take longer, which is how
// backoff reduces the total work of a bounded set of clients (Brooker,
// "What is Backoff For?", 2022: his serial clients keep one call in
// flight).
//
// A closed loop runs with Traffic's Ticks, outage, reject cost, recovery,
// collapse and drain rules; its Rate is 0 (the clients set the pace) and
// its StartCohort false (every client starts with a request anyway).
type ClosedLoop struct {
	Think int // idle ticks between the end of a request and the client's next, ≥ 0
}

// MaxThink bounds the think time.
const MaxThink = MaxWindow

// ValidateClosed checks closed-loop traffic against a scenario.
func (t Traffic) ValidateClosed(sc Scenario, l ClosedLoop) error {
	bad := func(flag, valid string, got any) error {
		return &FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	switch {
	case t.Rate != 0:
		return bad("rate", "left out with --loop closed (the clients set the pace)", t.Rate)
	case t.StartCohort:
		return bad("start-cohort", "left out with --loop closed (every client starts with a request)", true)
	case l.Think < 0 || l.Think > MaxThink:
		return bad("think-time", fmt.Sprintf("an integer number of ticks in [0, %d]", int(MaxThink)), l.Think)
	case float64(sc.Clients)*float64(t.Ticks) > maxTrafficWork:
		return bad("ticks", fmt.Sprintf("such that clients × ticks ≤ %g (clients is %d)", float64(maxTrafficWork), sc.Clients), t.Ticks)
	}
	return t.validate(sc)
}
