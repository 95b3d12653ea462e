package analysis

import (
	"fmt"
	"math"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
)

// Kinds of Validity.
const (
	ValidityExact       = "exact"       // the model's value is the scenario's
	ValidityConditional = "conditional" // exact given that the trial finishes by the horizon
	ValidityApproximate = "approximate" // an approximation with a measured error
)

// Validity says how far a model's result can be trusted: exact, exact
// but conditional on finishing by the horizon (with the probability left
// unfinished), or approximate with the errors herd validate measured at
// the nearest scenario it validated.
type Validity struct {
	Kind string `json:"kind"`
	// Unfinished is the probability that a trial has not finished at the
	// horizon (conditional results only).
	Unfinished float64 `json:"unfinished,omitempty"`
	// CallsError and CompletionError are the relative errors measured at
	// NearestValidated; InRegion says whether the scenario lies in the
	// region herd validate covers (MeanFieldInRegion).
	CallsError       *MeasuredError     `json:"calls_error,omitempty"`
	CompletionError  *MeasuredError     `json:"completion_error,omitempty"`
	NearestValidated *ValidatedScenario `json:"nearest_validated,omitempty"`
	InRegion         *bool              `json:"in_validated_region,omitempty"`
}

// MeasuredError is a model's relative error model/MC − 1 as herd validate
// measured it, with its MeanFieldLevel interval and the bound it is held to.
type MeasuredError struct {
	RelErr float64        `json:"rel_err"`
	CI     stats.Interval `json:"ci95"`
	Bound  float64        `json:"bound"`
}

// ValidatedScenario is a scenario herd validate measured, with the seed and
// trials of its Monte Carlo side.
type ValidatedScenario struct {
	Scenario model.Scenario `json:"scenario"`
	Seed     uint64         `json:"seed"`
	Trials   int            `json:"trials"`
}

// MeanFieldMeasurement is one row of the table of mean-field errors that
// herd validate measures on MeanFieldGrid (seed 1), for the scenarios in
// MeanFieldInRegion.
type MeanFieldMeasurement struct {
	Kind                      policy.Kind
	Clients, Capacity, Trials int
	Calls, Completion         MeasuredValue
}

// MeasuredValue is a mean-field value (kept to tell when the table is
// stale) and its relative error from Monte Carlo with the MeanFieldLevel
// interval of that error.
type MeasuredValue struct {
	Model, RelErr float64
	CI            stats.Interval
}

// Scenario is the measured scenario.
func (m MeanFieldMeasurement) Scenario() model.Scenario {
	return scenario(m.Clients, m.Capacity, model.Capacity, m.Kind, 1, 32, policy.HalfEven)
}

// MeanFieldMeasurements is the committed table of mean-field errors
// (meanfield_validated.go, written by go test ./analysis -run
// TestMeanFieldTable -update from a run of herd validate's mean-field grid;
// TestModelsAgreeWithMonteCarlo checks that herd validate measures it).
func MeanFieldMeasurements() []MeanFieldMeasurement { return meanFieldValidated }

// MeanFieldTable turns herd validate's mean-field checks into the rows of
// the committed table: one per scenario in MeanFieldInRegion.
func MeanFieldTable(v Validation) []MeanFieldMeasurement {
	var rows []MeanFieldMeasurement
	for i := 0; i+1 < len(v.Checks); i++ {
		a, b := v.Checks[i], v.Checks[i+1]
		if a.Method != MethodMeanField || a.Quantity != "calls" || b.Quantity != "completion" || !MeanFieldInRegion(a.Scenario) {
			continue
		}
		val := func(c Check) MeasuredValue { return MeasuredValue{float64(c.Model), c.RelErr, *c.RelErrCI} }
		rows = append(rows, MeanFieldMeasurement{Kind: a.Scenario.Policy.Kind, Clients: a.Scenario.Clients, Capacity: a.Scenario.Capacity,
			Trials: a.MonteCarlo.N, Calls: val(a), Completion: val(b)})
	}
	return rows
}

// ExactValidity is the validity of a result without approximation.
func ExactValidity() Validity { return Validity{Kind: ValidityExact} }

// MarkovValidity is the validity of an exact chain's result: exact, or
// conditional when probability is left unfinished at the horizon, with a
// warning.
func MarkovValidity(m solve.Markov) (Validity, []string) {
	if m.Unfinished <= 1e-12 {
		return ExactValidity(), nil
	}
	return Validity{Kind: ValidityConditional, Unfinished: m.Unfinished}, []string{fmt.Sprintf(
		"%.4g of the probability is unfinished at the horizon (tick %d): the means, sd and law of completion are conditional on finishing by then; raise --horizon",
		m.Unfinished, m.Scenario.EffectiveHorizon())}
}

// MeanFieldValidity is the validity of a mean-field result: approximate,
// with the errors measured at the nearest validated scenario of the same
// policy: nearest in |Δ log N| + 2·|Δ log N/k|, since the error moves with
// the load more than with the size (the knife edge at N/k = 3). Outside
// MeanFieldInRegion it warns that those errors may not hold.
func MeanFieldValidity(sc model.Scenario) (Validity, []string) {
	v := Validity{Kind: ValidityApproximate}
	in := MeanFieldInRegion(sc)
	v.InRegion = &in
	dist := func(m MeanFieldMeasurement) float64 {
		return math.Abs(math.Log10(float64(sc.Clients)/float64(m.Clients))) +
			2*math.Abs(math.Log10(float64(sc.Clients)/float64(sc.Capacity)*float64(m.Capacity)/float64(m.Clients)))
	}
	var best *MeanFieldMeasurement
	for i, m := range meanFieldValidated {
		if m.Kind == sc.Policy.Kind && (best == nil || dist(m) < dist(*best)) {
			best = &meanFieldValidated[i]
		}
	}
	if best == nil {
		return v, []string{fmt.Sprintf("herd validate has not measured the mean field for policy %s (only %v): its error here is unknown", sc.Policy.Kind, MeanFieldKinds)}
	}
	v.CallsError = &MeasuredError{best.Calls.RelErr, best.Calls.CI, MeanFieldCallsBound}
	v.CompletionError = &MeasuredError{best.Completion.RelErr, best.Completion.CI, MeanFieldCompletionBound}
	v.NearestValidated = &ValidatedScenario{Scenario: best.Scenario(), Seed: 1, Trials: best.Trials}
	if in {
		return v, nil
	}
	return v, []string{fmt.Sprintf(
		"outside the region herd validate measured (%v on the capacity server, base 1, cap 32, half-even, N %d…%d, N/k %d…%d): the errors quoted, from N = %d, k = %d, may not hold here",
		MeanFieldKinds, MeanFieldSizes[0], MeanFieldSizes[len(MeanFieldSizes)-1], MeanFieldLoads[0], MeanFieldLoads[len(MeanFieldLoads)-1],
		best.Clients, best.Capacity)}
}
