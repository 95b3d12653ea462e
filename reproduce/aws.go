package reproduce

import (
	"context"

	"github.com/herdlab/herd/analysis"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// AWSSource is the AWS Architecture Blog post whose simulation
// ReproduceAWS reruns.
const AWSSource = "https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/"

// AWSRow is one point of the blog's figures: mean calls (writes) and mean
// completion time, in ms, over the trials of one client count and policy.
type AWSRow struct {
	Clients    int                   `json:"clients"`
	Policy     string                `json:"policy"`
	Calls      stats.Estimate        `json:"calls"`
	Completion analysis.Distribution `json:"completion"`
	Censored   int                   `json:"censored"`
	Scenario   model.Scenario        `json:"scenario"`
}

// ReproduceAWS reruns the blog's simulation — model.AWSScenario for every
// client count and policy — with the options' trials and seed. progress,
// if set, is called after each row.
func ReproduceAWS(ctx context.Context, clients []int, kinds []policy.Kind, opt montecarlo.Options, progress func(done, total int)) ([]AWSRow, error) {
	total := len(clients) * len(kinds)
	rows := make([]AWSRow, 0, total)
	for _, n := range clients {
		for _, k := range kinds {
			sc := model.AWSScenario(n, k)
			s, err := analysis.Simulate(ctx, sc, opt)
			if err != nil {
				return nil, err
			}
			row := AWSRow{Clients: n, Policy: string(k), Censored: s.Censored, Scenario: sc}
			if s.Calls != nil {
				row.Calls, row.Completion = *s.Calls, *s.Completion
			}
			rows = append(rows, row)
			if progress != nil {
				progress(len(rows), total)
			}
		}
	}
	return rows, nil
}

// Point is one estimate of a curve: its x and its mean with a 95% interval.
type Point struct {
	X float64 `json:"x"`
	stats.Estimate
}

// Series is one policy's curve, ready for a figure with a confidence band.
type Series struct {
	Policy string  `json:"policy"`
	Unit   string  `json:"unit"` // of the y values
	Points []Point `json:"points"`
}

// AWSCallsVersusClients is the data of figure aws-calls-vs-clients: mean
// calls (writes) against the client count, one series per policy, in the
// order the rows first name the policies.
func AWSCallsVersusClients(rows []AWSRow) []Series {
	return awsSeries(rows, "calls", func(r AWSRow) stats.Estimate { return r.Calls })
}

// AWSTimeVersusClients is the data of figure aws-time-vs-clients: mean
// completion time in ms against the client count, one series per policy.
func AWSTimeVersusClients(rows []AWSRow) []Series {
	return awsSeries(rows, "ms", func(r AWSRow) stats.Estimate { return r.Completion.Estimate })
}

func awsSeries(rows []AWSRow, unit string, y func(AWSRow) stats.Estimate) []Series {
	var out []Series
	at := map[string]int{}
	for _, r := range rows {
		i, ok := at[r.Policy]
		if !ok {
			i = len(out)
			at[r.Policy] = i
			out = append(out, Series{Policy: r.Policy, Unit: unit})
		}
		out[i].Points = append(out[i].Points, Point{X: float64(r.Clients), Estimate: y(r)})
	}
	return out
}
