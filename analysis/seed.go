package analysis

import (
	"context"
	"math"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"gonum.org/v1/gonum/stat/distuv"
)

// Published is a mean ± sd over N trials as an article printed it.
type Published struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	N    int     `json:"n"`
}

// SeedSource names where SeedTable comes from.
const SeedSource = "shared/seeds/000_646017d758d38312.txt, section 5.2"

// seedRow is one row of the seed article's table: completion (ticks) and
// calls over 30 trials with k = 10, base 1, cap 32, fixed delay 2.
type seedRow struct {
	clients           int
	policy            model.Kind
	completion, calls Published
}

// SeedTable is the seed article's section 5.2 table, as printed.
var seedTable = []seedRow{
	{50, model.Fixed, pub(9.00, 0), pub(150.0, 0)},
	{50, model.Expo, pub(31.00, 0), pub(150.0, 0)},
	{50, model.Full, pub(8.63, 1.50), pub(117.8, 2.1)},
	{50, model.Equal, pub(8.33, 2.35), pub(110.4, 0.7)},
	{50, model.Decorrelated, pub(10.00, 1.44), pub(103.2, 2.0)},
	{100, model.Fixed, pub(19.00, 0), pub(550.0, 0)},
	{100, model.Expo, pub(191.00, 0), pub(550.0, 0)},
	{100, model.Full, pub(20.63, 5.26), pub(316.8, 3.9)},
	{100, model.Equal, pub(19.67, 5.71), pub(294.7, 3.4)},
	{100, model.Decorrelated, pub(16.93, 2.55), pub(272.3, 5.3)},
	{200, model.Fixed, pub(39.00, 0), pub(2100.0, 0)},
	{200, model.Expo, pub(511.00, 0), pub(2100.0, 0)},
	{200, model.Full, pub(40.67, 3.59), pub(814.0, 6.3)},
	{200, model.Equal, pub(48.17, 9.73), pub(763.2, 4.5)},
	{200, model.Decorrelated, pub(36.30, 4.14), pub(751.7, 9.3)},
}

func pub(mean, sd float64) Published { return Published{Mean: mean, SD: sd, N: 30} }

// Agreement compares herd's estimate with a published value by a two-sided
// z test at level 99.9% on the difference of means, with standard error
// √(SE_herd² + (sd/√n)²). With both standard errors zero the two agree only
// when equal.
type Agreement struct {
	Published Published `json:"article"`
	Z         float64   `json:"z"`
	Agrees    bool      `json:"agrees"`
}

// AgreementLevel is the confidence level of Agreement's z test.
const AgreementLevel = 0.999

// Agree compares an estimate with a published value.
func Agree(e Estimate, p Published) Agreement { return AgreeAt(e, p, AgreementLevel) }

// AgreeAt is Agree at another confidence level (a Bonferroni level, say).
func AgreeAt(e Estimate, p Published, level float64) Agreement {
	a := Agreement{Published: p}
	se := math.Hypot(e.SE(), p.SD/math.Sqrt(float64(p.N)))
	d := e.Mean - p.Mean
	if se == 0 {
		a.Agrees = d == 0
		if !a.Agrees {
			a.Z = math.Copysign(math.MaxFloat64, d)
		}
		return a
	}
	a.Z = d / se
	zc := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	a.Agrees = math.Abs(a.Z) <= zc
	return a
}

// SeedComparison is one row of the reproduction of the seed table.
type SeedComparison struct {
	Clients    int            `json:"clients"`
	Policy     string         `json:"policy"`
	Summary    Summary        `json:"-"`
	Calls      Compared       `json:"calls"`
	Completion Compared       `json:"completion"`
	Censored   int            `json:"censored"`
	Warnings   []string       `json:"warnings,omitempty"`
	Scenario   model.Scenario `json:"scenario"`
}

// Compared is herd's estimate beside the article's value.
type Compared struct {
	Estimate
	Agreement
}

// SeedScenario is the seed article's section 5.1 scenario for n clients.
func SeedScenario(n int, kind model.Kind) model.Scenario {
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
		s, err := Simulate(ctx, sc, opt)
		if err != nil {
			return nil, err
		}
		row := SeedComparison{Clients: r.clients, Policy: string(r.policy), Summary: s,
			Censored: s.Censored, Warnings: s.Warnings, Scenario: sc}
		if s.Calls != nil {
			row.Calls = Compared{*s.Calls, Agree(*s.Calls, r.calls)}
			row.Completion = Compared{s.Completion.Estimate, Agree(s.Completion.Estimate, r.completion)}
		}
		rows = append(rows, row)
		if progress != nil {
			progress(i+1, len(seedTable))
		}
	}
	return rows, nil
}
