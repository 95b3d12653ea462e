package montecarlo

import "fmt"

// MaxTrials bounds Options.Trials, so that a typo cannot ask for a run that
// never ends.
const MaxTrials = 100_000_000

// Validate checks the options a user sets: the number of trials, the
// workers and the engine's name. Its errors name each option as its flag
// does, without the dashes.
func (o Options) Validate() error {
	if o.Trials < 1 || o.Trials > MaxTrials {
		return fmt.Errorf("trials must be an integer in [1, %d], got %d", MaxTrials, o.Trials)
	}
	if o.Workers < 0 {
		return fmt.Errorf("workers must be ≥ 0 (0 means one per CPU), got %d", o.Workers)
	}
	if o.Use != Default {
		if _, err := ParseEngineName(string(o.Use)); err != nil {
			return err
		}
	}
	return nil
}
