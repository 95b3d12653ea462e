package analysis

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/service"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
)

// MethodServiceChain is the service server's exact chain.
const MethodServiceChain = solve.MethodServiceChain

// serviceChainChecks: goodput, wasted work, timeouts, rejections and
// sends, each a long-run rate per second.
const serviceChainChecks = 5

// Service chain runs are played for serviceRunLength and measured after
// serviceWarmup: the chains' relaxation times are a few seconds, so the
// start from an empty line biases the rates by far less than their
// standard errors.
const (
	serviceRunLength = 1000 * time.Second
	serviceWarmup    = 50 * time.Second
)

// serviceValidationGrid is herd validate's part for the service server:
// the exact chain (solve.ServiceChainOf) against the service engine on one
// worker with small waiting rooms, exponential service and timeouts,
// immediate retries, abandoned work served or cancelled, rejections
// retried or dropped.
func serviceValidationGrid() []ValidationCase {
	var g []ValidationCase
	add := func(lambda float64, room, attempts int, timeout time.Duration, cancel, final bool) {
		run := service.Run{
			Server: service.Server{Workers: 1, Room: room, Service: service.Law{Exp: true, Mean: time.Second},
				Timeout: timeout, TimeoutExp: timeout > 0, Cancel: cancel, RejectFinal: final},
			Load: service.Load{{Rate: lambda}}, Duration: serviceRunLength, Attempts: attempts,
			Policy: policy.Policy{Kind: policy.None, Base: 1, Cap: 1}, Bin: 10 * time.Second,
		}
		g = append(g, ValidationCase{Method: MethodServiceChain, Service: &run, Trials: 200})
	}
	add(0.8, 3, 1, 0, false, false)                   // M/M/1/4
	add(0.8, 2, 1, 2*time.Second, false, false)       // abandoned work served
	add(1.2, 3, 2, 3*time.Second, false, false)       // overload with a retry
	add(1.2, 3, 2, 3*time.Second, true, false)        // the same, work cancelled
	add(0.9, 4, 3, 4*time.Second, false, true)        // full room drops for good
	add(0.6, 0, 3, 500*time.Millisecond, true, false) // no room: rejections retried at once
	return g
}

// PerturbService returns a run whose service is factor times slower: a
// deliberately wrong chain when the models see it.
func PerturbService(factor float64) func(service.Run) service.Run {
	return func(r service.Run) service.Run {
		r.Server.Service.Mean = time.Duration(float64(r.Server.Service.Mean) * factor)
		return r
	}
}

// validateServiceChain compares the chain's long-run rates with the
// engine's, measured per trial over [warm-up, end) and judged in standard
// errors of the trials' mean.
func validateServiceChain(ctx context.Context, c ValidationCase, perturb func(service.Run) service.Run, seed uint64, workers int, critical float64) ([]Check, error) {
	run := *c.Service
	mrun := run
	if perturb != nil {
		mrun = perturb(run)
	}
	words := ServiceRunWords(run)
	rates, err := solve.ServiceChainOf(mrun)
	if err != nil {
		return []Check{{Method: MethodServiceChain, Run: words, Quantity: "—", Model: Number(math.NaN()), Verdict: Fail, Detail: err.Error()}}, nil
	}
	var m [serviceChainChecks]stats.Moments
	from, to := serviceWarmup.Seconds(), run.Duration.Seconds()
	bin := run.BinLength().Seconds()
	err = service.RunTrials(ctx, run, service.Options{Trials: c.Trials, Seed: seed, Workers: workers}, func(t *service.Trial) error {
		w := t.Window(bin, from, to)
		for i, x := range []int{w.Successes, w.Wasted, w.Timeouts, w.Rejections, w.Sends} {
			m[i].Add(float64(x) / (to - from))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var checks []Check
	for i, q := range []struct {
		name  string
		exact float64
	}{{"goodput /s", rates.Goodput}, {"wasted /s", rates.Wasted}, {"timeouts /s", rates.Timeouts}, {"rejections /s", rates.Rejections}, {"sends /s", rates.Sends}} {
		e := m[i].Estimate()
		ch := Check{Method: MethodServiceChain, Run: words, Quantity: q.name, Model: Number(q.exact), MonteCarlo: &e, Verdict: Pass}
		se := e.SE()
		d := e.Mean - q.exact
		switch {
		case se > 0:
			ch.Z = Number(d / se)
		case math.Abs(d) > 1e-9:
			ch.Z = Number(math.Inf(int(math.Copysign(1, d))))
		}
		if math.Abs(float64(ch.Z)) > critical {
			ch.Verdict = Fail
		}
		ch.Detail = fmt.Sprintf("z = %.2f over %d runs of %s after %s (chain of %d states)", float64(ch.Z), e.N, run.Duration-serviceWarmup, serviceWarmup, rates.States)
		checks = append(checks, ch)
	}
	return checks, nil
}

// ServiceRunWords is a service run in a table cell.
func ServiceRunWords(r service.Run) string {
	s := r.Server
	w := fmt.Sprintf("service c=%d room=%d λ=%g/s S=%s A=%d", s.Workers, s.Room, r.Load.RateAt(0), s.Service, r.Attempts)
	if s.Timeout > 0 {
		t := s.Timeout.String()
		if s.TimeoutExp {
			t = "exp:" + t
		}
		w += " T=" + t
	}
	if s.Cancel {
		w += " cancel"
	}
	if s.RejectFinal {
		w += " reject final"
	}
	return w
}
