package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/service"
	"github.com/herdlab/herd/stats"
)

// ServiceRunSpec is a service run as herd service's flags spell it.
type ServiceRunSpec struct {
	Workers          int      `json:"workers"`
	Room             int      `json:"room"`
	ServiceTime      string   `json:"service_time"`
	Slope            string   `json:"slope,omitempty"`
	Network          string   `json:"network"`
	Timeout          string   `json:"timeout,omitempty"`
	Cancel           bool     `json:"cancel,omitempty"`
	LateSuccess      bool     `json:"late_success,omitempty"`
	Reject           string   `json:"reject"`
	Pauses           []string `json:"pauses,omitempty"`
	Load             string   `json:"load"`
	Arrivals         string   `json:"arrivals"`
	Cohort           int      `json:"cohort,omitempty"`
	Duration         string   `json:"duration"`
	Drain            string   `json:"drain,omitempty"`
	Attempts         int      `json:"attempts"`
	Policy           string   `json:"policy,omitempty"`
	Trigger          string   `json:"trigger"`
	RecoveredBacklog int      `json:"recovered_backlog"`
	// retries is the retry rule in words, for the table.
	retries string
}

// ServiceRunOf spells a run.
func ServiceRunOf(r service.Run) ServiceRunSpec {
	s := r.Server
	spec := ServiceRunSpec{Workers: s.Workers, Room: s.Room, ServiceTime: s.Service.String(), Network: s.Network.String(),
		Cancel: s.Cancel, LateSuccess: s.LateSuccess, Reject: "retry", Load: r.Load.String(), Arrivals: r.Arrivals.String(),
		Cohort: r.Cohort, Duration: r.Duration.String(), Attempts: r.Attempts,
		Trigger: fmt.Sprintf("%s,%s", r.TriggerStart, r.TriggerEnd), RecoveredBacklog: r.RecoveredBacklog}
	if s.RejectFinal {
		spec.Reject = "final"
	}
	if s.Slope > 0 {
		spec.Slope = s.Slope.String()
	}
	if s.Timeout > 0 {
		spec.Timeout = s.Timeout.String()
		if s.TimeoutExp {
			spec.Timeout = "exponential:" + spec.Timeout
		}
	}
	if r.Drain > 0 {
		spec.Drain = r.Drain.String()
	}
	for _, p := range s.Pauses {
		spec.Pauses = append(spec.Pauses, fmt.Sprintf("%s,%s", p.At, p.Length))
	}
	spec.retries = "1 attempt (no retries)"
	if r.Attempts > 1 {
		p := r.Policy
		spec.Policy = fmt.Sprintf("%s base=%gs cap=%gs fixed-delay=%gs", p.Kind, p.Base, p.Cap, p.FixedDelay)
		after := fmt.Sprintf("after %s delays (base %gs, cap %gs)", p.Kind, p.Base, p.Cap)
		switch p.Kind {
		case policy.None:
			after = "at once"
		case policy.Fixed:
			after = fmt.Sprintf("after %gs", p.FixedDelay)
		}
		spec.retries = fmt.Sprintf("%d attempts, each retry %s", r.Attempts, after)
	}
	return spec
}

// ServiceRun is herd service's result, its JSON document.
type ServiceRun struct {
	Run        ServiceRunSpec          `json:"run"`
	Seed       uint64                  `json:"seed"`
	Summary    analysis.ServiceSummary `json:"result"`
	Provenance Provenance              `json:"provenance"`
}

// Table writes the run and its results.
func (r ServiceRun) Table(w io.Writer, _ int) error {
	s := r.Run
	room := fmt.Sprint(s.Room)
	if s.Room < 0 {
		room = "unbounded"
	}
	workers := fmt.Sprint(s.Workers)
	if s.Workers == 0 {
		workers = "one per request"
	}
	fmt.Fprintf(w, "service server: workers %s, room %s, service %s%s, network %s each way, timeout %s, rejections %s\n",
		workers, room, s.ServiceTime, map[bool]string{true: " + " + s.Slope + "·(in service)", false: ""}[s.Slope != ""], s.Network, orNever(s.Timeout), s.Reject)
	load := fmt.Sprintf("load %s (%s) for %s", s.Load, s.Arrivals, s.Duration)
	if s.Drain != "" {
		load += ", then " + s.Drain + " of drain"
	}
	if s.Cohort > 0 {
		load += fmt.Sprintf(", a cohort of %d at 0s", s.Cohort)
	}
	retries := s.retries
	if retries == "" { // a spec read back from JSON
		retries = fmt.Sprintf("%d attempts %s", s.Attempts, s.Policy)
	}
	fmt.Fprintf(w, "%s; %s; trigger %s (recovery judged from its end)", load, retries, s.Trigger)
	if len(s.Pauses) > 0 {
		fmt.Fprintf(w, "; pauses %s", strings.Join(s.Pauses, " "))
	}
	fmt.Fprint(w, "\n\n")
	m := r.Summary
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "recovered\t%s of %d runs\n", Share(m.Recovered), m.Trials)
	rec, recText := m.Recovery, "never"
	if m.Recovered.Count > 0 {
		recText = Estimate(&rec)
	}
	fmt.Fprintf(tw, "time to recover (s)\t%s\n", recText)
	for _, x := range []struct {
		name string
		e    *stats.Estimate
	}{{"goodput /s", &m.Goodput}, {"amplification", &m.Amplification}, {"new requests", &m.Starts}, {"successes", &m.Successes},
		{"late successes", &m.LateSuccesses}, {"timeouts", &m.Timeouts}, {"rejections", &m.Rejections}, {"drops", &m.Drops},
		{"gave up", &m.GiveUps}, {"served", &m.Served}, {"wasted", &m.Wasted}} {
		fmt.Fprintf(tw, "%s\t%s\n", x.name, Estimate(x.e))
	}
	return tw.Flush()
}

func orNever(s string) string {
	if s == "" {
		return "never"
	}
	return s
}
