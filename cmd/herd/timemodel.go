package main

import (
	"strings"

	"github.com/herdlab/herd/model"
)

// registerTime adds the time model's scenario flags.
func (f *scenarioFlags) registerTime() {
	f.add("time", "", "string", "", "time model: "+strings.Join(model.TimeNames(), "|")+
		" (default: continuous when --window, --latency or --first-spread is given, else tick; --tick alone keeps the tick model). "+
		"tick: whole ticks, delays rounded (the seed article's model and the analytical models'); "+
		"continuous: real times against the window server, which admits the first k arrivals of each --window and fails the rest at once; "+
		"a failed attempt retries one round trip (--latency) plus its unrounded delay after it reached the server. "+
		"Library presets are judged in continuous time once real units of the server are given")
	f.add("window", "", "duration", "0s", "continuous time: the window length τ, e.g. 100ms (default 1s); -k is then per window (or a rate such as 200/s), textbook delays are in windows, and the window is the policy's tick")
	f.add("latency", "", "string", "0s", "continuous time: each attempt's round trip, a duration (5ms), uniform:LO,HI, lognormal:MEAN,SD or quantiles:Q0,…,QM (quantiles at p = 0, 1/M, …, 1, linear between; e.g. uniform:2ms,8ms)")
	f.add("first-spread", "", "duration", "0s", "continuous time: the first sends reach the server uniformly over [0, D), e.g. 50ms (0: all at once)")
	f.add("first-arrivals", "", "string", "", "continuous time: the law of the first sends' arrivals at the server instead of --first-spread's uniform one, in --latency's syntax, e.g. measured quantiles quantiles:0s,2ms,9ms,30ms,41ms (p = 0, ¼, ½, ¾, 1; linear between)")
	f.add("first-answers", "", "string", "", "continuous time, with --first-arrivals: the law of the times the first sends' answers are back at their clients, in --latency's syntax (the k-th first arrival gets the k-th answer back, no sooner than it arrived; the machine of --latency-per-flight does not carry these ways again), e.g. measured quantiles: on a busy machine the answers to a burst come back in a clump")
	f.add("stalls", "", "string", "", "continuous time: the machine of --latency-per-flight stops now and then: it carries ways for exponential times of mean EVERY between stops of exponential length of mean LENGTH, when nothing moves (a host whose other work takes the cores for a time slice), e.g. 40ms,8ms (default: never)")
	f.add("latency-per-flight", "", "duration", "0s", "continuous time: round trips that grow with the load: one machine carries every request's way to the server and every answer's way back, "+
		"one at a time, each taking D, requests before answers (an answer waits, in the order given, until no request is waiting: a busy machine sends the answers to a wave back in a clump after it), so that a way waits D for each one ahead of it (clients and server sharing a few cores), e.g. 50us; "+
		"a failed attempt's retry then leaves its answer's way back, the --latency round trip (the client's own time) and its delay after it reached the server, and the first sends, reaching the server over --first-spread, each take their way's D of the machine as they arrive (0: round trips independent of the load)")
}
