package reproduce

import (
	"context"

	"github.com/herdlab/herd/analysis"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// SeedSource names where SeedTable comes from.
const SeedSource = "shared/seeds/000_646017d758d38312.txt, section 5.2"

// seedRow is one row of the seed article's table: completion (ticks) and
// calls over 30 trials with k = 10, base 1, cap 32, fixed delay 2.
type seedRow struct {
	clients           int
	policy            policy.Kind
	completion, calls stats.Published
}

// SeedTable is the seed article's section 5.2 table, as printed.
var seedTable = []seedRow{
	{50, policy.Fixed, pub(9.00, 0), pub(150.0, 0)},
	{50, policy.Expo, pub(31.00, 0), pub(150.0, 0)},
	{50, policy.Full, pub(8.63, 1.50), pub(117.8, 2.1)},
	{50, policy.Equal, pub(8.33, 2.35), pub(110.4, 0.7)},
	{50, policy.Decorrelated, pub(10.00, 1.44), pub(103.2, 2.0)},
	{100, policy.Fixed, pub(19.00, 0), pub(550.0, 0)},
	{100, policy.Expo, pub(191.00, 0), pub(550.0, 0)},
	{100, policy.Full, pub(20.63, 5.26), pub(316.8, 3.9)},
	{100, policy.Equal, pub(19.67, 5.71), pub(294.7, 3.4)},
	{100, policy.Decorrelated, pub(16.93, 2.55), pub(272.3, 5.3)},
	{200, policy.Fixed, pub(39.00, 0), pub(2100.0, 0)},
	{200, policy.Expo, pub(511.00, 0), pub(2100.0, 0)},
	{200, policy.Full, pub(40.67, 3.59), pub(814.0, 6.3)},
	{200, policy.Equal, pub(48.17, 9.73), pub(763.2, 4.5)},
	{200, policy.Decorrelated, pub(36.30, 4.14), pub(751.7, 9.3)},
}

// SeedPublished is one row of the seed article's table as printed.
type SeedPublished struct {
	Clients           int
	Policy            policy.Kind
	Completion, Calls stats.Published
}

// SeedTableRow is the printed row for n clients and a policy, if the
// table has one.
func SeedTableRow(n int, kind policy.Kind) (SeedPublished, bool) {
	for _, r := range seedTable {
		if r.clients == n && r.policy == kind {
			return SeedPublished{r.clients, r.policy, r.completion, r.calls}, true
		}
	}
	return SeedPublished{}, false
}

// SeedRows is the number of rows of the seed article's table, which
// ReproduceSeed reruns one by one.
func SeedRows() int { return len(seedTable) }

func pub(mean, sd float64) stats.Published { return stats.Published{Mean: mean, SD: sd, N: 30} }

// SeedComparison is one row of the reproduction of the seed table.
type SeedComparison struct {
	Clients    int              `json:"clients"`
	Policy     string           `json:"policy"`
	Summary    analysis.Summary `json:"-"`
	Calls      Compared         `json:"calls"`
	Completion Compared         `json:"completion"`
	Censored   int              `json:"censored"`
	Warnings   []string         `json:"warnings,omitempty"`
	Scenario   model.Scenario   `json:"scenario"`
}

// Agrees reports whether herd agrees with the article on both calls and
// completion in this row.
func (c SeedComparison) Agrees() bool { return c.Calls.Agrees && c.Completion.Agrees }

// Compared is herd's estimate beside the article's value.
type Compared struct {
	stats.Estimate
	stats.Agreement
}

// SeedScenario is the seed article's section 5.1 scenario for n clients.
func SeedScenario(n int, kind policy.Kind) model.Scenario {
	sc := model.Default()
	sc.Clients, sc.Policy.Kind = n, kind
	return sc
}

// ReproduceSeed reruns every row of the seed article's table and compares.
// progress, if set, is called after each row.
func ReproduceSeed(ctx context.Context, opt montecarlo.Options, progress func(done, total int)) ([]SeedComparison, error) {
	var rows []SeedComparison
	for i, r := range seedTable {
		sc := SeedScenario(r.clients, r.policy)
		s, err := analysis.Simulate(ctx, sc, opt)
		if err != nil {
			return nil, err
		}
		row := SeedComparison{Clients: r.clients, Policy: string(r.policy), Summary: s,
			Censored: s.Censored, Warnings: s.Warnings, Scenario: sc}
		if s.Calls != nil {
			row.Calls = Compared{*s.Calls, stats.Agree(*s.Calls, r.calls)}
			row.Completion = Compared{s.Completion.Estimate, stats.Agree(s.Completion.Estimate, r.completion)}
		}
		rows = append(rows, row)
		if progress != nil {
			progress(i+1, len(seedTable))
		}
	}
	return rows, nil
}
