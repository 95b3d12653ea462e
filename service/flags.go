package service

import (
	"fmt"
	"strings"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// Flags are a run as herd service's flags give it, laws and shapes still
// in their text.
type Flags struct {
	Workers, Room, Attempts, Cohort, RecoveredBacklog              int
	Law, Network, Load, Arrivals, Reject, Policy, Trigger, Timeout string
	Slope, Duration, Drain, Bin                                    time.Duration
	Base, Cap, FixedDelay                                          float64
	Cancel, LateSuccess                                            bool
	Pauses                                                         []string
}

// Run is the run the flags describe; an error names the flag (a
// model.UsageError).
func (f Flags) Run() (Run, error) {
	bad := func(flag string, err error) error { return model.Usagef("--%s: %v", flag, err) }
	law, err := ParseLaw(f.Law)
	if err != nil {
		return Run{}, bad("service-time", err)
	}
	network, err := ParseLaw(f.Network)
	if err != nil {
		return Run{}, bad("network", err)
	}
	load, err := ParseLoad(f.Load)
	if err != nil {
		return Run{}, bad("load", err)
	}
	arr, err := ParseArrivals(f.Arrivals)
	if err != nil {
		return Run{}, bad("arrivals", err)
	}
	if f.Reject != "retry" && f.Reject != "final" {
		return Run{}, bad("reject", fmt.Errorf("want retry or final, got %q", f.Reject))
	}
	kind, ok := policy.Kind(f.Policy), false
	for _, k := range policy.Kinds() {
		ok = ok || k == kind
	}
	if !ok {
		return Run{}, bad("policy", fmt.Errorf("want none, fixed, expo, full, equal or decorrelated, got %q", f.Policy))
	}
	timeout, timeoutExp, err := ParseTimeout(f.Timeout)
	if err != nil {
		return Run{}, bad("timeout", err)
	}
	var pauses []Pause
	for _, p := range f.Pauses {
		at, length, ok := pair(p)
		if !ok {
			return Run{}, bad("pause", fmt.Errorf("want AT,LENGTH, two durations, got %q", p))
		}
		pauses = append(pauses, Pause{At: at, Length: length})
	}
	ts, te, found := pair(f.Trigger)
	if !found {
		return Run{}, bad("trigger", fmt.Errorf("want START,END, two durations, got %q", f.Trigger))
	}
	if f.Bin <= 0 {
		return Run{}, bad("bin", fmt.Errorf("must be a duration > 0, got %s", f.Bin))
	}
	run := Run{
		Server: Server{Workers: f.Workers, Service: law, Slope: f.Slope, Room: f.Room, RejectFinal: f.Reject == "final",
			Timeout: timeout, TimeoutExp: timeoutExp, Cancel: f.Cancel, Network: network, LateSuccess: f.LateSuccess, Pauses: pauses},
		Load: load, Arrivals: arr, Cohort: f.Cohort, Duration: f.Duration, Drain: f.Drain, Attempts: f.Attempts,
		Policy:       policy.Policy{Kind: kind, Base: f.Base, Cap: f.Cap, FixedDelay: f.FixedDelay},
		TriggerStart: ts, TriggerEnd: te, RecoveredBacklog: f.RecoveredBacklog, Bin: f.Bin,
	}
	if err := run.Validate(); err != nil {
		return Run{}, &model.UsageError{Err: err}
	}
	return run, nil
}

// pair reads "A,B", two durations.
func pair(text string) (a, b time.Duration, ok bool) {
	x, y, found := strings.Cut(text, ",")
	if !found {
		return 0, 0, false
	}
	a, err1 := time.ParseDuration(strings.TrimSpace(x))
	b, err2 := time.ParseDuration(strings.TrimSpace(y))
	return a, b, err1 == nil && err2 == nil
}
