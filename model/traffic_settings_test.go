package model

import (
	"errors"
	"testing"
)

func TestTrafficSettingsSayTheRunAskedFor(t *testing.T) {
	sc := Default()
	on := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, m := range names {
				if m == n {
					return true
				}
			}
			return false
		}
	}
	d := DefaultTraffic(1)
	open := TrafficSettings{Rate: 5, Ticks: d.Ticks, OutageStart: d.OutageStart, OutageLength: d.OutageLength, Loop: "open", Given: on("rate")}
	if mode, tr, _, err := open.Resolve(sc); err != nil || mode != OpenRun || tr.Rate != 5 {
		t.Errorf("--rate 5: %v %+v %v, want an open run at rate 5", mode, tr, err)
	}
	if mode, _, _, err := (TrafficSettings{Loop: "open"}).Resolve(sc); err != nil || mode != CohortRun {
		t.Errorf("no traffic flag: %v %v, want the cohort", mode, err)
	}
	for _, c := range []struct {
		s    TrafficSettings
		want string
	}{
		{TrafficSettings{Loop: "open", Given: on("outage")}, "--outage is an open-loop or closed-loop flag: it needs --rate or --loop closed"},
		{TrafficSettings{Loop: "open", Rate: 5, Given: on("rate", "think-time")}, "--think-time is a closed-loop flag: it needs --loop closed"},
		{TrafficSettings{Loop: "sideways"}, `--loop must be open or closed, got "sideways"`},
		{func() TrafficSettings { s := open; s.Given = on("rate", "horizon"); return s }(), "--horizon is for the cohort; in open-loop and closed-loop modes a trial lasts --ticks"},
	} {
		_, _, _, err := c.s.Resolve(sc)
		var ue *UsageError
		if !errors.As(err, &ue) || err.Error() != c.want {
			t.Errorf("%+v: error %v, want the usage error %q", c.s, err, c.want)
		}
	}
}
