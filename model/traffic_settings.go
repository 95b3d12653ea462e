package model

// RunMode is the kind of run a scenario's traffic asks for.
type RunMode int

const (
	CohortRun RunMode = iota // the thundering-herd cohort
	OpenRun                  // a Poisson stream of new requests (--rate)
	ClosedRun                // each client's next request after its last (--loop closed)
)

// TrafficSettings are open-loop and closed-loop traffic as a user gives
// them, each parameter by the name of its flag, and which were given.
type TrafficSettings struct {
	Rate                              float64
	Ticks, OutageStart, OutageLength  int
	OutageCapacity                    int
	RejectCost                        float64
	RecoveredBacklog, CollapseBacklog int
	Drain, StartCohort                bool
	Loop                              string // open or closed
	Think                             int
	// Given says whether the parameter of that flag name was given; nil:
	// none was.
	Given func(name string) bool
}

func (t TrafficSettings) given(name string) bool { return t.Given != nil && t.Given(name) }

// trafficParams are the parameters that need --rate or --loop closed.
var trafficParams = []string{"ticks", "outage-start", "outage", "outage-capacity", "reject-cost", "recovered-backlog", "collapse-backlog", "series", "drain", "start-cohort", "think-time"}

// Resolve says which kind of run the settings ask for and builds its
// traffic and closed loop for sc; open-loop and closed-loop parameters
// without --rate or --loop closed are refused, and so is --horizon with
// them (a trial lasts --ticks).
func (t TrafficSettings) Resolve(sc Scenario) (RunMode, Traffic, ClosedLoop, error) {
	var none ClosedLoop
	if t.Loop != "open" && t.Loop != "closed" {
		return CohortRun, Traffic{}, none, Usagef("--loop must be open or closed, got %q", t.Loop)
	}
	closed := t.Loop == "closed"
	if !t.given("rate") && !closed {
		for _, n := range trafficParams {
			if t.given(n) {
				return CohortRun, Traffic{}, none, Usagef("--%s is an open-loop or closed-loop flag: it needs --rate or --loop closed", n)
			}
		}
		return CohortRun, Traffic{}, none, nil
	}
	if !closed && t.given("think-time") {
		return CohortRun, Traffic{}, none, Usagef("--think-time is a closed-loop flag: it needs --loop closed")
	}
	tr := Traffic{
		Rate: t.Rate, Ticks: t.Ticks, OutageStart: t.OutageStart, OutageLength: t.OutageLength,
		OutageCapacity: t.OutageCapacity, RejectCost: t.RejectCost,
		RecoveredBacklog: t.RecoveredBacklog, CollapseBacklog: t.CollapseBacklog,
		Drain: DrainsByDefault(sc.Server), StartCohort: t.StartCohort,
	}
	if t.given("drain") {
		tr.Drain = t.Drain
	}
	if t.given("horizon") {
		return CohortRun, tr, none, Usagef("--horizon is for the cohort; in open-loop and closed-loop modes a trial lasts --ticks")
	}
	if closed {
		l := ClosedLoop{Think: t.Think}
		return ClosedRun, tr, l, tr.ValidateClosed(sc, l)
	}
	return OpenRun, tr, none, tr.Validate(sc)
}
