package service

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
)

// Brooker's ramp, 80 − 1.6·|t − 25| from 40/s at 0 s to 0 at 75 s, as
// --load spells it.
func TestLoadRampAndSteps(t *testing.T) {
	l, err := ParseLoad("0s:40/s,~25s:80/s,~75s:0/s")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{0, 3, 24.9, 25, 40, 74.5, 76} {
		want := max(0, 80-1.6*math.Abs(x-25))
		if x >= 75 {
			want = 0
		}
		if got := l.RateAt(x); math.Abs(got-want) > 1e-9 {
			t.Errorf("rate at %g: %g, want %g", x, got, want)
		}
	}
	// ∫ = 25·60 + 50·40 = 3,500.
	if got := l.Integral(80); math.Abs(got-3500) > 1e-9 {
		t.Errorf("integral %g, want 3500", got)
	}
	if l.String() != "0s:40/s,~25s:80/s,~1m15s:0/s" {
		t.Errorf("spelled %q", l.String())
	}
	s, _ := ParseLoad("0s:40/s,20s:80/s,25s:40/s")
	if s.RateAt(19.99) != 40 || s.RateAt(20) != 80 || s.RateAt(25) != 40 || s.Integral(80) != 3400 {
		t.Errorf("steps: %g %g %g %g", s.RateAt(19.99), s.RateAt(20), s.RateAt(25), s.Integral(80))
	}
}

func TestServiceRunRefusesByFlag(t *testing.T) {
	good := Run{Server: Server{Workers: 1, Room: -1, Service: Law{Exp: true, Mean: time.Second}},
		Load: Load{{Rate: 1}}, Duration: time.Minute, Attempts: 1}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for flag, change := range map[string]func(*Run){
		"load":         func(r *Run) { r.Load = Load{{Rate: 1}, {At: 0, Rate: 2}} },
		"room":         func(r *Run) { r.Server.Room = -2 },
		"attempts":     func(r *Run) { r.Attempts = 0 },
		"service-time": func(r *Run) { r.Server.Service = Law{Exp: true} },
		"cancel":       func(r *Run) { r.Server.Cancel = true },
		"pause":        func(r *Run) { r.Server.Pauses = []Pause{{At: time.Second}} },
		"trigger":      func(r *Run) { r.TriggerEnd = time.Hour },
	} {
		r := good
		change(&r)
		var fe *model.FieldError
		if err := r.Validate(); !errors.As(err, &fe) || fe.Flag != flag {
			t.Errorf("%s: got %v", flag, err)
		}
	}
	for _, bad := range []string{"0s:40", "x:40/s", "0s:40/m", ""} {
		if _, err := ParseLoad(bad); err == nil {
			t.Errorf("ParseLoad(%q) accepted", bad)
		}
	}
}

func TestServiceLawParse(t *testing.T) {
	for text, mean := range map[string]float64{"exponential:100ms": 0.1, "uniform:2ms,8ms": 0.005, "lognormal:5ms,2ms": 0.005, "3ms": 0.003} {
		l, err := ParseLaw(text)
		if err != nil || l.String() != text && text != "3ms" || math.Abs(l.MeanSeconds()-mean) > 1e-12 {
			t.Errorf("%q: %v %v mean %g", text, l, err, l.MeanSeconds())
		}
	}
}
