package config

import (
	"strings"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
)

// Formats says which files --config reads, for the commands' help.
const Formats = "a gRPC service config (methodConfig[].retryPolicy, retryThrottling), an Envoy retry_policy and circuit_breakers, an AWS config file (retry_mode, max_attempts), resilience4j retry instances, Polly v8 RetryStrategyOptions (JSON) or a client-go wait.Backoff; herd prints what it understood on standard error"

// One is the one policy of the readings, for a command that plays one: a
// list that holds several is refused, naming them.
func One(rs []Reading) (Reading, error) {
	if len(rs) != 1 {
		var names []string
		for _, r := range rs {
			names = append(names, r.Label())
		}
		return Reading{}, model.Usagef("--config holds %d retry policies (%s); this command plays one: keep one in the file, or compare them with herd compare --config", len(rs), strings.Join(names, ", "))
	}
	return rs[0], nil
}

// PolicyFlags are the flags that give a policy, which --config replaces.
var PolicyFlags = []string{"policy", "base", "cap", "fixed-delay"}

// Configured is spec with the policy of r, refusing a flag of PolicyFlags
// that the user also gave (changed says which were).
func Configured(spec model.Spec, r Reading, changed func(flag string) bool) (model.Spec, error) {
	for _, name := range PolicyFlags {
		if changed(name) {
			return model.Spec{}, model.Usagef("--%s and --config both give the policy; give one", name)
		}
	}
	return spec.WithConfigured(r.Policy), nil
}

// NoControls refuses the controls of a reading on a command that plays
// cohorts without them.
func (r Reading) NoControls(command string) error {
	what := ""
	switch {
	case r.Throttling.MaxTokens != 0:
		what = "retryThrottling"
	case r.Bucket != "":
		what = "the AWS retry quota (retry_mode)"
	case r.Budget != nil:
		return r.budgetRefused()
	default:
		return nil
	}
	return model.Usagef("--config %s gives %s, which acts on a stream of requests: %s plays a cohort without controls; herd simulate --config with --rate or --loop closed plays it", r.File, what, command)
}

func (r Reading) budgetRefused() error {
	return model.Usagef("--config %s gives an Envoy retry_budget, one state shared by every request through an Envoy, which herd does not simulate; herd delays --config prints its decisions on failures that come together", r.File)
}

// ControlsFor adds the reading's controls to those of the flags for a
// simulation of sc (a cohort alone when cohort), refusing what herd
// cannot play.
func (r Reading) ControlsFor(sc model.Scenario, cohort bool, flags control.Controls) (control.Controls, error) {
	if r.Budget != nil {
		return flags, r.budgetRefused()
	}
	if cohort {
		if err := r.NoControls("simulate without --rate or --loop closed"); err != nil {
			return flags, err
		}
	}
	if r.PerTryTimeout > 0 && sc.Queues() {
		return flags, model.Usagef("--config %s gives per_try_timeout, which fires on the queue server: herd's --timeout is in ticks and abandons an attempt its own way; leave one out", r.File)
	}
	ctl, err := r.Controls(flags)
	if err != nil {
		return flags, err
	}
	if err := ctl.ValidateFor(sc); err != nil {
		return flags, &model.UsageError{Err: err}
	}
	return ctl, nil
}
