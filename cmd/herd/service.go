package main

import (
	"fmt"
	"time"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/service"
	"github.com/spf13/cobra"
)

// serviceOptions are what herd service's flags said.
type serviceOptions struct {
	runOutput
	Service service.Run
	Trials  service.Options
}

func newCmdService(f *factory, runF func(*serviceOptions) error) *cobra.Command {
	opts := &serviceOptions{runOutput: runOutput{IO: f.IO}}
	var sf service.Flags
	var trials, threads int
	var seed uint64
	var out outputFlags
	c := &cobra.Command{
		Use:   "service",
		Short: "Monte Carlo of the continuous-time service server: a load shape, timeouts, retries, pauses",
		Long: `service plays --trials runs of the continuous-time service server: --workers
FIFO workers (0: one per request, no waiting) behind a waiting room of
--room requests (-1: unbounded), each service time drawn from --service-time
plus --slope per request in service (this one included), fixed at its start.
New requests arrive at the rate --load gives (steps 0s:40/s,20s:80/s,25s:40/s;
a point written ~T:R is reached by a linear ramp), --arrivals poisson or even
(the k-th when the load's integral reaches k), for --duration, then --drain
more with none. Each request crosses the network (--network, each way), its
client abandons an attempt --timeout after sending it and retries after the
--policy's delay (in seconds) until it made --attempts; the server still
serves what was abandoned (wasted work) unless --cancel. A send that finds
the room full is rejected: the client learns it a network way later and
retries, or with --reject final the request is dropped for good. With
--late-success an abandoned attempt's answer serves its request while the
client waits on a later attempt of it. --pause AT,LENGTH stops every worker
from starting a service during [AT, AT+LENGTH) (services under way finish).

The run recovered at the first 1 s bin's end (--bin) after --trigger's end,
before the load ends, at which at most --recovered-backlog requests are at
the server and no attempt timed out in the bin. Outputs: the recovered share
(Wilson interval), the time to recover, goodput over the load's duration,
amplification ((new requests + retries)/new requests), per-run counts, and in
JSON the mean of each bin's counts. docs/servers.md gives the semantics.`,
		Example: `  herd service --workers 1 --service-time 100ms --timeout 500ms --attempts 4 \
    --policy fixed --fixed-delay 0.05 --load 0s:7/s --arrivals even --late-success \
    --pause 30s,1s --trigger 30s,31s --duration 60s --drain 10s
  herd service --workers 0 --service-time 1s --slope 10ms --network exponential:100ms \
    --timeout 3s --attempts 3 --load 0s:40/s,20s:80/s,25s:40/s --trigger 20s,25s \
    --recovered-backlog 100 --duration 80s`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			run, err := sf.Run()
			if err != nil {
				return err
			}
			if trials < 1 || trials > service.MaxTrials {
				return usageError{fmt.Errorf("--trials: must be an integer in [1, %d], got %d", service.MaxTrials, trials)}
			}
			if threads < 0 || threads > montecarlo.MaxWorkers {
				return usageError{fmt.Errorf("--threads: must be an integer in [0, %d], got %d", montecarlo.MaxWorkers, threads)}
			}
			opts.Service = run
			opts.Trials = service.Options{Trials: trials, Seed: seed, Workers: threads}
			opts.Ctx = c.Context()
			if opts.Output, err = out.resolve(f); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			sum, err := analysis.SimulateService(opts.Ctx, run, opts.Trials)
			if err != nil {
				return err
			}
			opts.Output.Cite = opts.Output.Cite.WithRun(seed, trials, "service")
			return opts.Output.writeResult(opts.IO, render.ServiceRun{Run: render.ServiceRunOf(run), Seed: seed, Summary: sum, Provenance: opts.Output.Cite})
		},
	}
	fs := c.Flags()
	fs.IntVar(&sf.Workers, "workers", 1, "FIFO workers (0: one per request, nothing waits)")
	fs.IntVar(&sf.Room, "room", -1, "requests that can wait for a worker (-1: unbounded)")
	fs.StringVar(&sf.Law, "service-time", "100ms", "law of a service time: a duration, exponential:MEAN, uniform:LO,HI, lognormal:MEAN,SD or quantiles:Q0,…,QM")
	fs.DurationVar(&sf.Slope, "slope", 0, "service time added per request in service, this one included, fixed at its start")
	fs.StringVar(&sf.Network, "network", "0s", "law of one network way (request or answer), as --service-time")
	fs.StringVar(&sf.Timeout, "timeout", "0s", "a client abandons an attempt this long after sending it (0: never), or after a time drawn from exponential:MEAN")
	fs.BoolVar(&sf.Cancel, "cancel", false, "the server drops abandoned work instead of serving it")
	fs.BoolVar(&sf.LateSuccess, "late-success", false, "an abandoned attempt's answer serves its request while the client waits on a later attempt")
	fs.StringVar(&sf.Reject, "reject", "retry", "a send that finds the room full: retry (the client learns it and retries) or final (dropped for good)")
	fs.StringArrayVar(&sf.Pauses, "pause", nil, "AT,LENGTH: no service starts during [AT, AT+LENGTH) (repeatable)")
	fs.StringVar(&sf.Load, "load", "0s:8/s", "rate of new requests: points TIME:RATE/s, steps, or ~TIME:RATE/s for a linear ramp to it")
	fs.StringVar(&sf.Arrivals, "arrivals", "poisson", "new requests: poisson or even")
	fs.IntVar(&sf.Cohort, "cohort", 0, "requests all sent at time 0 besides the load's")
	fs.DurationVar(&sf.Duration, "duration", time.Minute, "new requests arrive during this long")
	fs.DurationVar(&sf.Drain, "drain", 0, "time played after the load ends, with no new requests")
	fs.IntVar(&sf.Attempts, "attempts", 1, "most attempts per request (1: no retries)")
	fs.StringVar(&sf.Policy, "policy", "none", "retry delay policy, delays in seconds: none, fixed, expo, full, equal, decorrelated")
	fs.Float64Var(&sf.Base, "base", 1, "policy base delay, seconds")
	fs.Float64Var(&sf.Cap, "cap", 32, "policy largest delay, seconds")
	fs.Float64Var(&sf.FixedDelay, "fixed-delay", 1, "fixed policy's delay, seconds")
	fs.StringVar(&sf.Trigger, "trigger", "0s,0s", "START,END of the trigger (spike, pause, outage); recovery is judged from END")
	fs.IntVar(&sf.RecoveredBacklog, "recovered-backlog", 1, "requests at the server at or under which a run has recovered")
	fs.DurationVar(&sf.Bin, "bin", time.Second, "length of the bins that count events")
	fs.IntVar(&trials, "trials", 200, fmt.Sprintf("Monte Carlo runs (1…%d)", service.MaxTrials))
	fs.Uint64Var(&seed, "seed", 1, "random seed; the same seed gives byte-identical output")
	fs.IntVar(&threads, "threads", 0, "parallel workers of the simulation (0: one per CPU); never changes results")
	render.Annotate(fs, render.ServiceFlagGroups)
	complete(c, "arrivals", []string{"poisson", "even"})
	complete(c, "reject", []string{"retry", "final"})
	out.register(c)
	return c
}
