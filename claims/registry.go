package claims

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/reproduce"
	"github.com/herdlab/herd/stats"
	"github.com/herdlab/herd/study"
)

// Where the claims come from.
const (
	seedTextbook = "shared/seeds/000_646017d758d38312.txt"
	seedGuide    = "shared/seeds/002_46a7a3a4b348517f.txt"
)

// The client counts claims are checked at: the blog's figures span 10…190,
// the seed article's table has 50, 100 and 200.
var (
	awsGrid  = []int{10, 20, 50, 100, 190}
	seedGrid = []int{50, 100, 200}
)

// The sources' words as numbers. Each threshold is read from the words
// alone, never from the results, and every Check that uses one says so,
// so that a reader can disagree with the reading.
const (
	// "approximately the same": within ±10%, the customary tolerance of
	// "about" in engineering prose.
	approxSame = 0.10
	// "slightly", "a small amount", "僅差", "わずかに": a real difference
	// that is still "approximately the same", so above 0 and at most 10%.
	// Never "any cut under 50%".
	slight = 0.10
	// "much", "significantly": beyond every slight difference by as much
	// again, at least 20%, so that no difference is both slight and much.
	much = 1.20
	// "the gaps are gone": essentially no empty bins, under one in twenty.
	gapsGone = 0.05
	// "clusters of calls": calls gathered in groups with silence between,
	// so most of the run silent: over half of the bins empty.
	clustered = 0.50
	// "an approximately constant rate": the rate's variation across bins,
	// net of Poisson noise, within the ±10% of "approximately".
	constantRate = 0.10
	// "永久に回復できません" (never recovers): unfinished in every trial,
	// read as a Clopper–Pearson interval above 0.9 at a finite budget.
	neverRecovers = 0.9
)

// The tolerances of the growth claims (GrowthRule), from their words.
const (
	// "increases with N²", "grows linearly": the words name a power and
	// nothing finer, so the exponent must be nearer the named power than the
	// half-powers a writer would have named instead (N^1.5, N^2.5; √N).
	namedPower = 0.25
	// "none of these approaches fundamentally change the N² nature": any
	// change short of a change of order is allowed, and the order a
	// fundamental change would reach is the next integer power down (N: a
	// bounded number of calls per client), so nearer N² than N.
	samePowerNature = 0.5
)

// at is a Finding for a single client count; an undecided test is rerun
// with a larger budget, as at the points of a grid.
func (l *Lab) at(m string, n int, test func(n int) (Verdict, []Evidence)) Finding {
	v, ev := l.decide(n, test)
	return Finding{Model: m, Scenario: fmt.Sprintf("%s; N = %d", describeModel(m), n), Verdict: v, Evidence: ev}
}

// overSettings judges a claim over the settings its quote names — the
// seed article's N = 50, 100 and 200 — with no bisection in between: it
// holds when it holds at every one, fails when it fails at one, and its
// regime names the settings where it holds and where it fails.
func (l *Lab) overSettings(m string, grid []int, test func(n int) (Verdict, []Evidence)) Finding {
	f := Finding{Model: m, Scenario: fmt.Sprintf("%s; N = %s", describeModel(m), joinInts(grid))}
	byVerdict := map[Verdict][]int{}
	var vs []Verdict
	for _, n := range grid {
		v, ev := l.decide(n, test)
		for _, e := range ev {
			e.Name = fmt.Sprintf("N=%d: %s", n, e.Name)
			f.Evidence = append(f.Evidence, e)
		}
		vs = append(vs, v)
		byVerdict[v] = append(byVerdict[v], n)
	}
	f.Verdict = all(vs...)
	if f.Verdict != Holds && len(byVerdict) > 1 {
		var parts []string
		for _, v := range []Verdict{Holds, Fails, Inconclusive} {
			if ns := byVerdict[v]; len(ns) > 0 {
				parts = append(parts, fmt.Sprintf("%s at N = %s", map[Verdict]string{Holds: "holds", Fails: "fails", Inconclusive: "undecided"}[v], joinInts(ns)))
			}
		}
		f.Regime = strings.Join(parts, "; ")
	}
	return f
}

// above decides whether an estimate lies above x.
func above(e stats.Estimate, x float64) Verdict {
	return sign(stats.Difference{Estimate: stats.Estimate{Mean: e.Mean - x, SD: e.SD, N: e.N, CI95: shift(e.CI95, -x)}})
}

func shift(iv *stats.Interval, d float64) *stats.Interval {
	if iv == nil {
		return nil
	}
	return &stats.Interval{iv[0] + d, iv[1] + d}
}

func not(v Verdict) Verdict {
	switch v {
	case Holds:
		return Fails
	case Fails:
		return Holds
	}
	return v
}

func within(l *Lab, a, b model.Scenario, me metric, lo, hi float64) Verdict {
	// lo < mean(A)/mean(B) < hi, by Fieller's test at each end.
	return all(l.greater(a, b, me, lo), l.greater(b, a, me, 1/hi))
}

var registry = []Claim{
	{
		ID: "aws-work-grows-n2", Origin: "aws", Source: reproduce.AWSSource + " (the introduction)", Model: ModelOCC,
		Quote: "With N clients contending, the total amount of work done by the system increases with N2.",
		Check: fmt.Sprintf("policy none, mean calls, by the growth rule with p = 2 and τ = %g: the words name a power and nothing finer, so the local exponent must be nearer 2 than the half-powers 1.5 and 2.5 a writer would have named instead", namedPower),
		check: func(l *Lab, m string) Finding {
			return l.growth(m, growth{kinds: []policy.Kind{policy.None}, metric: calls, power: 2, tolerance: namedPower})
		},
	},
	{
		ID: "aws-time-grows-linearly", Origin: "aws", Source: reproduce.AWSSource + " (the introduction)", Model: ModelOCC,
		Quote: "the time to complete all the updates grows linearly with contention",
		Check: fmt.Sprintf("policy none, mean completion time, by the growth rule with p = 1 and τ = %g: \"linearly\" names a power and nothing finer, so the local exponent must be nearer 1 than 0.5 or 1.5", namedPower),
		check: func(l *Lab, m string) Finding {
			return l.growth(m, growth{kinds: []policy.Kind{policy.None}, metric: completion, power: 1, tolerance: namedPower})
		},
	},
	{
		ID: "aws-expo-reduces-work-slightly", Origin: "aws", Source: reproduce.AWSSource + " (Adding Backoff)", Model: ModelOCC,
		Key:   "N=100: calls expo/none",
		Quote: "backoff helps a small amount, but doesn’t solve the problem. Client work has only been reduced slightly.",
		Check: fmt.Sprintf("expo against none, paired: holds at N when %.2f < calls(expo)/calls(none) < 1: \"reduced\" is a real cut (above 0), and \"only … slightly\" and \"a small amount\" bound it at %.0f%%, a cut that leaves the work approximately the same", 1-slight, 100*slight),
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				e, o := Scenario(m, n, policy.Expo), Scenario(m, n, policy.None)
				return within(l, e, o, calls, 1-slight, 1), []Evidence{l.ratio("calls expo/none", e, o, calls)}
			})
		},
	},
	{
		ID: "aws-expo-clusters", Origin: "aws", Source: reproduce.AWSSource + " (Adding Backoff)", Model: ModelOCC,
		Quote: "there are still clusters of calls",
		Check: fmt.Sprintf("expo at N = 100, over the whole run after the initial spike (bins of 100 ms, or 1 tick, from the end of the spike to the last call): holds when the mean share of empty bins is above %.2f — clusters are groups of calls with silence between, so most of the run is silent", clustered),
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				e := l.burstMean(Scenario(m, n, policy.Expo), func(b burstiness) float64 { return b.empty })
				return above(e, clustered), []Evidence{est("share of empty bins (expo)", e, "")}
			})
		},
	},
	{
		ID: "aws-full-gaps-gone", Origin: "aws", Source: reproduce.AWSSource + " (Adding Jitter)", Model: ModelOCC,
		Key:   "variation of the rate",
		Quote: "The gaps are gone, and beyond the initial spike, there’s an approximately constant rate of calls.",
		Check: fmt.Sprintf("full at N = 100, over the whole run after the initial spike (bins of 100 ms, or 1 tick, from the end of the spike to the last call): holds when both halves of the sentence hold — \"the gaps are gone\": under %.0f%% of the bins empty (gone: essentially none); \"an approximately constant rate\": the rate's variation across bins net of Poisson noise, √(var − mean)/mean of the calls per bin, under %.0f%% (approximately: ±10%%). The index of dispersion is reported", 100*gapsGone, 100*constantRate),
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				sc := Scenario(m, n, policy.Full)
				e := l.burstMean(sc, func(b burstiness) float64 { return b.empty })
				r := l.burstMean(sc, func(b burstiness) float64 { return b.variation })
				d := l.burstMean(sc, func(b burstiness) float64 { return b.dispersion })
				return all(not(above(e, gapsGone)), not(above(r, constantRate))), []Evidence{est("share of empty bins (full)", e, ""),
					est("variation of the rate across bins, net of Poisson noise (full)", r, ""), est("index of dispersion of calls per bin (full)", d, "")}
			})
		},
	},
	{
		ID: "aws-full-halves-calls-at-100", Origin: "aws", Source: reproduce.AWSSource + " (Adding Jitter)", Model: ModelOCC,
		Quote: "In the case with 100 contending clients, we’ve reduced our call count by more than half.",
		Check: "full against expo (the backoff without jitter of the section before) at N = 100, paired: holds when calls(full)/calls(expo) < 0.5, the words' own number (Fieller)",
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				f, e := Scenario(m, n, policy.Full), Scenario(m, n, policy.Expo)
				return l.greater(e, f, calls, 2), []Evidence{l.ratio("calls full/expo", f, e, calls)}
			})
		},
	},
	{
		ID: "aws-full-faster-than-expo", Origin: "aws", Source: reproduce.AWSSource + " (Adding Jitter)", Model: ModelOCC,
		Quote: "We’ve also significantly improved the time to completion, when compared to un-jittered exponential backoff.",
		Check: fmt.Sprintf("full against expo at N = 100, paired: holds when completion(expo)/completion(full) > %.2f — \"significantly\" is read as \"much\", beyond every slight (≤ %.0f%%) difference by as much again", much, 100*slight),
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				f, e := Scenario(m, n, policy.Full), Scenario(m, n, policy.Expo)
				return l.greater(e, f, completion, much), []Evidence{l.ratio("completion expo/full", e, f, completion)}
			})
		},
	},
	{
		ID: "aws-full-equal-same-calls", Origin: "aws", Source: reproduce.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Key:   "N=100: calls equal/full",
		Quote: "the number of calls is approximately the same for “Full” and “Equal” jitter",
		Check: fmt.Sprintf("equal against full, paired: holds at N when calls(equal)/calls(full) lies within 1 ± %.2f (Fieller at each end) — \"approximately\": the customary ±10%%", approxSame),
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				e, f := Scenario(m, n, policy.Equal), Scenario(m, n, policy.Full)
				return within(l, e, f, calls, 1-approxSame, 1+approxSame), []Evidence{l.ratio("calls equal/full", e, f, calls)}
			})
		},
	},
	{
		ID: "aws-decorrelated-more-calls", Origin: "aws", Source: reproduce.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Key:   "N=100: calls decorrelated/full",
		Quote: "and higher for “Decorrelated”",
		Check: "decorrelated against full and equal, paired: holds at N when calls(decorrelated) exceeds both — \"higher\" with no qualifier: any real excess, decided at 99.9%",
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				d, f, e := Scenario(m, n, policy.Decorrelated), Scenario(m, n, policy.Full), Scenario(m, n, policy.Equal)
				return all(l.greater(d, f, calls, 1), l.greater(d, e, calls, 1)),
					[]Evidence{l.ratio("calls decorrelated/full", d, f, calls), l.ratio("calls decorrelated/equal", d, e, calls)}
			})
		},
	},
	{
		ID: "aws-expo-clear-loser", Origin: "aws", Source: reproduce.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Key:   "N=100: completion expo/full",
		Quote: "The no-jitter exponential backoff approach is the clear loser. It not only takes more work, but also takes more time than the jittered approaches.",
		Check: "expo against full, equal and decorrelated, paired: holds at N when expo has more calls and a longer completion than each — \"more\" with no qualifier, and \"clear\": every one of the six comparisons decided at 99.9%",
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				x := Scenario(m, n, policy.Expo)
				var vs []Verdict
				var ev []Evidence
				for _, k := range study.Jittered {
					j := Scenario(m, n, k)
					vs = append(vs, l.greater(x, j, calls, 1), l.greater(x, j, completion, 1))
					ev = append(ev, l.ratio("completion expo/"+string(k), x, j, completion))
				}
				return all(vs...), ev
			})
		},
	},
	{
		ID: "aws-equal-slightly-more-work", Origin: "aws", Source: reproduce.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Key:   "N=100: calls equal/full",
		Quote: "“Equal Jitter” is the loser. It does slightly more work than “Full Jitter”",
		Check: fmt.Sprintf("equal against full, paired: holds at N when 1 < calls(equal)/calls(full) < %.2f — \"slightly more\": a real excess of at most %.0f%%, one that leaves the work approximately the same", 1+slight, 100*slight),
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				e, f := Scenario(m, n, policy.Equal), Scenario(m, n, policy.Full)
				return within(l, e, f, calls, 1, 1+slight), []Evidence{l.ratio("calls equal/full", e, f, calls)}
			})
		},
	},
	{
		ID: "aws-equal-much-longer", Origin: "aws", Source: reproduce.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Key:   "N=100: completion equal/full",
		Quote: "and takes much longer",
		Check: fmt.Sprintf("equal against full, paired: holds at N when completion(equal)/completion(full) > %.2f — \"much\": beyond every slight (≤ %.0f%%) difference by as much again", much, 100*slight),
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				e, f := Scenario(m, n, policy.Equal), Scenario(m, n, policy.Full)
				return l.greater(e, f, completion, much), []Evidence{l.ratio("completion equal/full", e, f, completion)}
			})
		},
	},
	{
		ID: "aws-full-less-work-more-time-than-decorrelated", Origin: "aws", Source: reproduce.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Key:   "N=100: completion full/decorrelated",
		Quote: "The “Full Jitter” approach uses less work, but slightly more time.",
		Check: fmt.Sprintf("full against decorrelated, paired: holds at N when calls(full) < calls(decorrelated) (\"less\": any real difference) and 1 < completion(full)/completion(decorrelated) < %.2f (\"slightly more\": a real excess of at most %.0f%%)", 1+slight, 100*slight),
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				f, d := Scenario(m, n, policy.Full), Scenario(m, n, policy.Decorrelated)
				return all(l.greater(d, f, calls, 1), within(l, f, d, completion, 1, 1+slight)),
					[]Evidence{l.ratio("calls full/decorrelated", f, d, calls), l.ratio("completion full/decorrelated", f, d, completion)}
			})
		},
	},
	{
		ID: "aws-jitter-keeps-n2", Origin: "aws", Source: reproduce.AWSSource + " (the conclusion)", Model: ModelOCC,
		Key:   "local exponent of mean calls, expo",
		Quote: "none of these approaches fundamentally change the N2 nature of the work to be done",
		Check: fmt.Sprintf("expo, full, equal and decorrelated, mean calls, by the growth rule with p = 2 and τ = %g: \"fundamentally\" allows any change short of a change of order, and the order such a change would reach is N (a bounded number of calls per client), so each local exponent must be nearer 2 than 1", samePowerNature),
		check: func(l *Lab, m string) Finding {
			return l.growth(m, growth{kinds: []policy.Kind{policy.Expo, policy.Full, policy.Equal, policy.Decorrelated}, metric: calls, power: 2, tolerance: samePowerNature})
		},
	},
	{
		ID: "seed-expo-as-many-calls-as-fixed", Origin: "seed", Source: seedTextbook + ", section 5.3 (1) and section 8", Model: ModelCapacity,
		Key:   "N=200: calls expo − fixed",
		Quote: "ジッターなしの指数バックオフは、固定間隔リトライと総呼び出し回数が完全に一致する。",
		Check: "expo against fixed (delay d₁ = 2·base), paired, at the article's N = 50, 100 and 200: holds when calls are equal in every trial (\"完全に一致\": match exactly); fails when the paired difference's interval excludes 0",
		check: func(l *Lab, m string) Finding {
			return l.overSettings(m, seedGrid, func(n int) (Verdict, []Evidence) {
				x, f := Scenario(m, n, policy.Expo), Scenario(m, n, policy.Fixed)
				d := l.contrast(x, f, calls, 1)
				v := Inconclusive
				switch {
				case d.Mean == 0 && d.SD == 0:
					v = Holds
				case d.Significant:
					v = Fails
				}
				return v, []Evidence{{Name: "calls expo − fixed", Value: d.Mean, CI95: d.CI95}}
			})
		},
	},
	{
		ID: "seed-expo-13x-slower-at-200", Origin: "seed", Source: seedTextbook + ", section 5.3 (2)", Model: ModelCapacity,
		Quote: "N=200 では固定間隔が39 tickで完了するのに対し、指数バックオフ(ジッターなし)は511 tickかかっており、実に13倍以上遅い。",
		Check: "expo against fixed at N = 200, paired: holds when completion(expo)/completion(fixed) ≥ 13 (\"13倍以上\": 13 times or more; Fieller)",
		check: func(l *Lab, m string) Finding {
			return l.at(m, 200, func(n int) (Verdict, []Evidence) {
				x, f := Scenario(m, n, policy.Expo), Scenario(m, n, policy.Fixed)
				return l.greater(x, f, completion, 13), []Evidence{l.ratio("completion expo/fixed", x, f, completion)}
			})
		},
	},
	{
		ID: "seed-jitter-cuts-21-to-64", Origin: "seed", Source: seedTextbook + ", section 5.3 (3) and section 8", Model: ModelCapacity,
		Key:   "N=200: cut in calls, decorrelated",
		Quote: "ジッターを加えた3方式は、いずれも固定間隔・指数バックオフに対して総呼び出し回数を21〜64%削減した。",
		Check: "full, equal, decorrelated against fixed, paired, at the article's N = 50, 100 and 200: holds when every cut 1 − calls(jitter)/calls(fixed) lies within [20.5%, 64.5%] (\"いずれも … 21〜64%\": each of the three, within the printed range to its rounding)",
		check: func(l *Lab, m string) Finding {
			return l.overSettings(m, seedGrid, func(n int) (Verdict, []Evidence) {
				f := Scenario(m, n, policy.Fixed)
				var vs []Verdict
				var ev []Evidence
				for _, k := range study.Jittered {
					j := Scenario(m, n, k)
					vs = append(vs, within(l, j, f, calls, 1-0.645, 1-0.205))
					ev = append(ev, cut(l.ratio("cut in calls, "+string(k)+" vs fixed", j, f, calls)))
				}
				return all(vs...), ev
			})
		},
	},
	{
		ID: "seed-jitter-cut-grows-with-n", Origin: "seed", Source: seedTextbook + ", section 5.3 (3)", Model: ModelCapacity,
		Key:   "cut full N=200",
		Quote: "削減率は N が大きくなるほど大きくなる傾向が見られた",
		Check: "full, equal, decorrelated: the cut in calls against fixed at N = 50 < at 100 < at 200 (\"大きくなる傾向\": grows along the article's settings; independent runs, z test on the difference of cuts)",
		check: func(l *Lab, m string) Finding {
			var vs []Verdict
			var ev []Evidence
			for _, k := range study.Jittered {
				var cuts []Evidence
				for _, n := range seedGrid {
					c := cut(l.ratio(fmt.Sprintf("cut %s N=%d", k, n), Scenario(m, n, k), Scenario(m, n, policy.Fixed), calls))
					cuts = append(cuts, c)
					ev = append(ev, c)
				}
				for i := 1; i < len(cuts); i++ {
					vs = append(vs, increases(cuts[i-1], cuts[i]))
				}
			}
			return Finding{Model: m, Scenario: describeModel(m) + "; N = " + joinInts(seedGrid), Verdict: all(vs...), Evidence: ev}
		},
	},
	{
		ID: "seed-decorrelated-fewest-calls", Origin: "seed", Source: seedTextbook + ", section 5.3 (4)", Model: ModelCapacity,
		Key:   "N=50: calls decorrelated/equal",
		Quote: "総呼び出し回数はDecorrelated Jitterが3設定中2つ(N=100,200)で最小",
		Check: "decorrelated against full and equal, paired, at each of the article's three settings N = 50, 100, 200: holds when calls(decorrelated) is below both at the two it names (N = 100, 200); the third (N = 50), where \"2 of 3\" says it is not lowest, is checked too, in herd and in the article's own table, and the verdict says when the count is wrong",
		check: func(l *Lab, m string) Finding {
			test := func(n int) (Verdict, []Evidence) {
				d, f, e := Scenario(m, n, policy.Decorrelated), Scenario(m, n, policy.Full), Scenario(m, n, policy.Equal)
				return all(l.greater(f, d, calls, 1), l.greater(e, d, calls, 1)),
					[]Evidence{l.ratio("calls decorrelated/full", d, f, calls), l.ratio("calls decorrelated/equal", d, e, calls)}
			}
			named := l.overSettings(m, []int{100, 200}, test)
			third := l.overSettings(m, []int{50}, test)
			named.Scenario = describeModel(m) + "; N = " + joinInts(seedGrid)
			named.Evidence = append(third.Evidence, named.Evidence...)
			lowest, printed := publishedLowest(50, study.Jittered, func(p reproduce.SeedPublished) float64 { return p.Calls.Mean })
			switch {
			case m != ModelCapacity: // the article's table is of the capacity server
			case third.Verdict == Holds && lowest == policy.Decorrelated:
				named.Note = fmt.Sprintf("the article undercounted: decorrelated has the fewest calls in all 3 settings, at N = 50 too, in herd (evidence N=50) and in the article's own table (calls %s)", printed)
			case third.Verdict == Holds:
				named.Note = "the count is wrong: in herd decorrelated has the fewest calls at N = 50 too (evidence N=50), although the article's table does not show it (calls " + printed + ")"
			case lowest == policy.Decorrelated:
				named.Note = "the article's own table contradicts its count: decorrelated has the fewest calls at N = 50 too (calls " + printed + ")"
			}
			return named
		},
	},
	{
		ID: "seed-decorrelated-fastest-or-nearly", Origin: "seed", Source: seedTextbook + ", section 5.3 (4)", Model: ModelCapacity,
		Key:   "N=50: completion decorrelated/equal",
		Quote: "完了時間も3設定すべてでDecorrelated Jitterが最速か僅差の最速だった",
		Check: fmt.Sprintf("decorrelated against full and equal, paired, over the three settings the quote names (\"3設定すべて\": N = 50, 100, 200): holds when at every one completion(decorrelated) < %.2f × the completion of each — \"僅差\" (a narrow margin): a slight difference, at most %.0f%%", 1+slight, 100*slight),
		check: func(l *Lab, m string) Finding {
			f := l.overSettings(m, seedGrid, func(n int) (Verdict, []Evidence) {
				d, f, e := Scenario(m, n, policy.Decorrelated), Scenario(m, n, policy.Full), Scenario(m, n, policy.Equal)
				return all(l.greater(f, d, completion, 1/(1+slight)), l.greater(e, d, completion, 1/(1+slight))),
					[]Evidence{l.ratio("completion decorrelated/full", d, f, completion), l.ratio("completion decorrelated/equal", d, e, completion)}
			})
			if m == ModelCapacity { // the article's table is of the capacity server
				f.Note = seedNotNearlyFastest(slight)
			}
			return f
		},
	},
	{
		ID: "seed-equal-widest-spread", Origin: "seed", Source: seedTextbook + ", section 5.3 (4)", Model: ModelCapacity,
		Key:   "N=200: sd of completion, equal",
		Quote: "Equal Jitterは待機時間の下限が保証される分、稀に大きな待機時間を引いた場合の完了時間のばらつき(標準偏差)が3方式中最大になる傾向も観測された。",
		Check: "equal against full and decorrelated, paired, at the article's N = 50, 100 and 200: holds when the variance of completion of equal exceeds both (\"3方式中最大\": the largest of the three; paired squared deviations)",
		check: func(l *Lab, m string) Finding {
			return l.overSettings(m, seedGrid, func(n int) (Verdict, []Evidence) {
				e, f, d := Scenario(m, n, policy.Equal), Scenario(m, n, policy.Full), Scenario(m, n, policy.Decorrelated)
				var ev []Evidence
				for _, sc := range []model.Scenario{e, f, d} {
					x := l.mean(sc, completion)
					ev = append(ev, Evidence{Name: "sd of completion, " + string(sc.Policy.Kind), Value: x.SD, Unit: sc.TimeUnit()})
				}
				return all(sign(l.spreadContrast(e, f, completion)), sign(l.spreadContrast(e, d, completion))), ev
			})
		},
	},
	{
		ID: "seed-jitter-matters-more-than-which", Origin: "seed", Source: seedTextbook + ", section 5.3 (4) and section 8", Model: ModelCapacity,
		Key:   "N=50: gap",
		Quote: "「ジッターを入れるかどうか」の方が「どのジッターを選ぶか」よりも支配的な要因である",
		Check: "at the article's N = 50, 100 and 200: holds when the gap in mean calls between the better no-jitter policy (fixed or expo) and the worst jittered one exceeds the spread among the jittered ones (\"支配的\": the larger of the two effects; paired, policies ranked by their means)",
		check: func(l *Lab, m string) Finding {
			return l.overSettings(m, seedGrid, func(n int) (Verdict, []Evidence) {
				d := l.jitterDominance(m, n)
				return sign(d), []Evidence{{Name: "gap − spread in calls", Value: d.Mean, CI95: d.CI95}}
			})
		},
	},
	{
		ID: "seed-expo-never-recovers", Origin: "seed", Source: seedGuide + ", section 2.3", Model: ModelCapacity,
		Key:   "collision server",
		Quote: "このプロセスが繰り返され、システムは永久に回復できません。",
		Check: fmt.Sprintf("expo at N = 100 (k = 10): the share of trials unfinished at the horizon, on the capacity and the collision server (OCC: its only server); \"永久に\" (forever): unfinished in every trial, so it holds on a server when the share's Clopper–Pearson interval lies above %.1f, fails when below %.1f", neverRecovers, 1-neverRecovers),
		check: func(l *Lab, m string) Finding {
			trials := max(100, l.opt.Trials/10)
			if m == ModelOCC {
				e := l.censoredShare(Scenario(m, 100, policy.Expo), trials)
				return Finding{Model: m, Scenario: describeModel(m) + "; N = 100", Verdict: shareVerdict(e), Evidence: []Evidence{e}}
			}
			f := Finding{Model: m, Scenario: describeModel(m) + "; capacity and collision servers; N = 100"}
			var vs []Verdict
			for _, server := range []model.Server{model.Capacity, model.Collision} {
				sc := Scenario(m, 100, policy.Expo)
				sc.Server = server
				e := l.censoredShare(sc, trials)
				e.Name = server.String() + " server: " + e.Name
				vs = append(vs, shareVerdict(e))
				f.Evidence = append(f.Evidence, e)
			}
			switch {
			case vs[0] == vs[1]:
				f.Verdict = vs[0]
			case vs[0] == Fails && vs[1] == Holds:
				f.Verdict, f.Condition = HoldsOnlyWhen, "the server is a collision channel (a tick with more than k arrivals serves nobody); on the capacity server the cohort shrinks by k per wave and finishes"
			default:
				f.Verdict = Inconclusive
			}
			return f
		},
	},
	{
		ID: "seed-full-disperses-most", Origin: "seed", Source: seedGuide + ", section 4.2 and table 4.3", Model: ModelCapacity,
		Quote: "負荷の分散（ばらつき）が最も大きくなります。",
		Check: "full against equal and decorrelated at N = 100, paired, over the whole run after the initial spike (bins of 1 tick, or 100 ms, to the last call): \"負荷の分散 … 最も大きく\" (spreads the load the most) holds when the index of dispersion of calls per bin, 1 for a perfectly spread (Poisson) load, is lowest for full, decided at 99.9%",
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				f, e, d := Scenario(m, n, policy.Full), Scenario(m, n, policy.Equal), Scenario(m, n, policy.Decorrelated)
				disp := func(b burstiness) float64 { return b.dispersion }
				v := all(sign(l.burstContrast(e, f, disp)), sign(l.burstContrast(d, f, disp)))
				var ev []Evidence
				for _, sc := range []model.Scenario{f, e, d} {
					ev = append(ev, est("index of dispersion, "+string(sc.Policy.Kind), l.burstMean(sc, disp), ""))
				}
				return v, ev
			})
		},
	},
	{
		ID: "seed-equal-min-wait-disperses-less", Origin: "seed", Source: seedGuide + ", section 4.2 and table 4.3", Model: ModelCapacity,
		Key:   "index of dispersion equal/full",
		Quote: "常に「backoff / 2」の最小待機時間が保証される … Full Jitterに比べ、ランダム性の範囲が狭まるため、分散効果が（理論上は）わずかに低くなります",
		Check: fmt.Sprintf("the law of equal's delay has minimum d_n/2 for every retry n (exact), and at N = 100, over the whole run after the initial spike, equal spreads the load slightly less than full: 1 < D(equal)/D(full) < %.2f for the index of dispersion D of calls per bin (paired; \"わずかに\": slightly, at most %.0f%%)", 1+slight, 100*slight),
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				e, f := Scenario(m, n, policy.Equal), Scenario(m, n, policy.Full)
				minOK := Holds
				for r := 1; r <= e.Policy.Classes()+1; r++ {
					if law := e.Policy.Law(r, e.Policy.Base); law.Lo != e.Policy.Ceiling(r)/2 {
						minOK = Fails
					}
				}
				disp := func(b burstiness) float64 { return b.dispersion }
				return all(minOK, l.burstWithin(e, f, disp, 1, 1+slight)), []Evidence{
					{Name: "shortest equal delay / d_n, every n", Value: e.Policy.Law(1, e.Policy.Base).Lo / e.Policy.Ceiling(1)},
					l.burstRatio("index of dispersion equal/full", e, f, disp)}
			})
		},
	},
}

// publishedLowest is the policy of the seed table with the lowest printed
// value at n among kinds, and the printed values, lowest first.
func publishedLowest(n int, kinds []policy.Kind, pick func(reproduce.SeedPublished) float64) (policy.Kind, string) {
	var rows []reproduce.SeedPublished
	for _, k := range kinds {
		if r, ok := reproduce.SeedTableRow(n, k); ok {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return "", ""
	}
	sort.SliceStable(rows, func(i, j int) bool { return pick(rows[i]) < pick(rows[j]) })
	var s []string
	for _, r := range rows {
		s = append(s, fmt.Sprintf("%s %g", r.Policy, pick(r)))
	}
	return rows[0].Policy, strings.Join(s, ", ")
}

// seedNotNearlyFastest says where the seed table's own completions put
// decorrelated more than the slight margin behind the fastest of full and
// equal, which its finding (4) says does not happen in any setting.
func seedNotNearlyFastest(margin float64) string {
	var bad []string
	for _, n := range seedGrid {
		d, ok := reproduce.SeedTableRow(n, policy.Decorrelated)
		if !ok {
			continue
		}
		best, slowest := reproduce.SeedPublished{}, true
		for _, k := range []policy.Kind{policy.Full, policy.Equal} {
			r, ok := reproduce.SeedTableRow(n, k)
			if !ok {
				continue
			}
			if best.Policy == "" || r.Completion.Mean < best.Completion.Mean {
				best = r
			}
			slowest = slowest && r.Completion.Mean < d.Completion.Mean
		}
		if best.Policy == "" || d.Completion.Mean <= (1+margin)*best.Completion.Mean {
			continue
		}
		s := fmt.Sprintf("at N = %d decorrelated takes %.2f ticks against %s's %.2f (+%.0f%%", n, d.Completion.Mean, best.Policy, best.Completion.Mean, 100*(d.Completion.Mean/best.Completion.Mean-1))
		if slowest {
			s += ", the slowest of the three"
		}
		bad = append(bad, s+")")
	}
	if len(bad) == 0 {
		return ""
	}
	return "the article's own table contradicts it: " + strings.Join(bad, "; ")
}

// cut turns a ratio calls(jitter)/calls(fixed) into the cut 1 − ratio.
func cut(r Evidence) Evidence {
	c := Evidence{Name: r.Name, Value: 1 - r.Value, Unit: "(share)"}
	if r.CI95 != nil {
		c.CI95 = &stats.Interval{1 - r.CI95[1], 1 - r.CI95[0]}
	}
	return c
}

// increases decides b > a for two estimates from independent runs, by a
// z test on their difference with standard errors read off their 95%
// intervals.
func increases(a, b Evidence) Verdict {
	se := func(e Evidence) float64 { return (e.CI95[1] - e.CI95[0]) / 2 / 1.959963984540054 }
	d := b.Value - a.Value
	h := 1.959963984540054 * math.Hypot(se(a), se(b))
	iv := widen(stats.Interval{d - h, d + h})
	return sign(stats.Difference{Estimate: stats.Estimate{Mean: d, CI95: &iv}}) // N = 0: taken as is
}

func shareVerdict(e Evidence) Verdict {
	switch {
	case e.CI95[0] > 0.9:
		return Holds
	case e.CI95[1] < 0.1:
		return Fails
	}
	return Inconclusive
}

// jitterDominance is, trial by trial, (calls of the better no-jitter
// policy − calls of the worst jittered one) − (calls of the worst jittered
// one − calls of the best jittered one), the policies being ranked by their
// mean calls; its mean is the article's "whether to jitter matters more
// than which jitter" as a positive number.
func (l *Lab) jitterDominance(m string, n int) stats.Difference {
	pick := func(kinds []policy.Kind, better func(a, b float64) bool) model.Scenario {
		best := Scenario(m, n, kinds[0])
		for _, k := range kinds[1:] {
			sc := Scenario(m, n, k)
			if better(l.mean(sc, calls).Mean, l.mean(best, calls).Mean) {
				best = sc
			}
		}
		return best
	}
	less := func(a, b float64) bool { return a < b }
	more := func(a, b float64) bool { return a > b }
	noJitter := pick([]policy.Kind{policy.Fixed, policy.Expo}, less)
	worst, best := pick(study.Jittered, more), pick(study.Jittered, less)
	rn, rw, rb := l.outcomes(noJitter, 0), l.outcomes(worst, 0), l.outcomes(best, 0)
	var mo stats.Moments
	for i := range min(len(rn), len(rw), len(rb)) {
		if rn[i].Censored || rw[i].Censored || rb[i].Censored {
			continue
		}
		mo.Add((rn[i].Calls - rw[i].Calls) - (rw[i].Calls - rb[i].Calls))
	}
	return mo.Difference()
}
