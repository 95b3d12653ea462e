package claims

import (
	"fmt"
	"math"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/stats"
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

// Thresholds that turn the articles' words into numbers. Each is stated in
// the claim's Check so a reader can disagree with it.
const (
	approxSame  = 0.10 // "approximately the same", "slightly": within ±10%
	much        = 1.20 // "much longer": at least 20% longer
	gapsGone    = 0.05 // "the gaps are gone": under 5% of bins empty
	clustered   = 0.50 // "clusters of calls": over half of the bins empty
	nearFastest = 0.10 // "fastest or near fastest": within 10% of the fastest
	noticeable  = 0.99 // "reduced": by at least 1%
)

// at is a Finding for a single client count; an undecided test is rerun
// with a larger budget, as at the points of a grid.
func (l *Lab) at(m string, n int, test func(n int) (Verdict, []Evidence)) Finding {
	v, ev := l.decide(n, test)
	return Finding{Model: m, Scenario: fmt.Sprintf("%s; N = %d", describeModel(m), n), Verdict: v, Evidence: ev}
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
		ID: "aws-work-grows-n2", Origin: "aws", Source: analysis.AWSSource + " (the introduction)", Model: ModelOCC,
		Quote: "With N clients contending, the total amount of work done by the system increases with N2.",
		Check: "policy none: least-squares exponent of mean calls against N over N = 10…190; holds when its 95% interval lies within (1.5, 2.5), i.e. N² is the nearest power",
		check: func(l *Lab, m string) Finding {
			e := l.exponent(m, model.None, awsGrid, calls, 0)
			return Finding{Model: m, Scenario: describeModel(m) + "; policy none; N = " + joinInts(awsGrid), Verdict: nearest(e, 2), Evidence: []Evidence{e}}
		},
	},
	{
		ID: "aws-time-grows-linearly", Origin: "aws", Source: analysis.AWSSource + " (the introduction)", Model: ModelOCC,
		Quote: "the time to complete all the updates grows linearly with contention",
		Check: "policy none: least-squares exponent of mean completion time against N over N = 10…190; holds when its 95% interval lies within (0.5, 1.5)",
		check: func(l *Lab, m string) Finding {
			e := l.exponent(m, model.None, awsGrid, completion, 0)
			return Finding{Model: m, Scenario: describeModel(m) + "; policy none; N = " + joinInts(awsGrid), Verdict: nearest(e, 1), Evidence: []Evidence{e}}
		},
	},
	{
		ID: "aws-expo-reduces-work-slightly", Origin: "aws", Source: analysis.AWSSource + " (Adding Backoff)", Model: ModelOCC,
		Quote: "backoff helps a small amount, but doesn’t solve the problem. Client work has only been reduced slightly.",
		Check: "expo against none, paired: holds at N when 0.5 < calls(expo)/calls(none) < 0.99 (a reduction of at least 1%, so one can notice it, and of less than the half that jitter achieves)",
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				e, o := Scenario(m, n, model.Expo), Scenario(m, n, model.None)
				v := all(l.greater(o, e, calls, 1/noticeable), l.greater(e, o, calls, 0.5))
				return v, []Evidence{l.ratio("calls expo/none", e, o, calls)}
			})
		},
	},
	{
		ID: "aws-expo-clusters", Origin: "aws", Source: analysis.AWSSource + " (Adding Backoff)", Model: ModelOCC,
		Quote: "there are still clusters of calls",
		Check: fmt.Sprintf("expo at N = 100: mean share of empty bins (100 ms, or 1 tick) between the initial spike and the 90%% call; holds when above %.2f", clustered),
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				e := l.burstMean(Scenario(m, n, model.Expo), func(b burstiness) float64 { return b.empty })
				return above(e, clustered), []Evidence{est("share of empty bins (expo)", e, "")}
			})
		},
	},
	{
		ID: "aws-full-gaps-gone", Origin: "aws", Source: analysis.AWSSource + " (Adding Jitter)", Model: ModelOCC,
		Quote: "The gaps are gone, and beyond the initial spike, there’s an approximately constant rate of calls.",
		Check: fmt.Sprintf("full at N = 100: mean share of empty bins (100 ms, or 1 tick) between the initial spike and the 90%% call; holds when below %.2f. The index of dispersion is reported, not judged", gapsGone),
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				sc := Scenario(m, n, model.Full)
				e := l.burstMean(sc, func(b burstiness) float64 { return b.empty })
				d := l.burstMean(sc, func(b burstiness) float64 { return b.dispersion })
				return not(above(e, gapsGone)), []Evidence{est("share of empty bins (full)", e, ""), est("index of dispersion of calls per bin (full)", d, "")}
			})
		},
	},
	{
		ID: "aws-full-halves-calls-at-100", Origin: "aws", Source: analysis.AWSSource + " (Adding Jitter)", Model: ModelOCC,
		Quote: "In the case with 100 contending clients, we’ve reduced our call count by more than half.",
		Check: "full against expo at N = 100, paired: holds when calls(full)/calls(expo) < 0.5 (Fieller)",
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				f, e := Scenario(m, n, model.Full), Scenario(m, n, model.Expo)
				return l.greater(e, f, calls, 2), []Evidence{l.ratio("calls full/expo", f, e, calls)}
			})
		},
	},
	{
		ID: "aws-full-faster-than-expo", Origin: "aws", Source: analysis.AWSSource + " (Adding Jitter)", Model: ModelOCC,
		Quote: "We’ve also significantly improved the time to completion, when compared to un-jittered exponential backoff.",
		Check: "full against expo at N = 100, paired: holds when completion(full) < completion(expo)",
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				f, e := Scenario(m, n, model.Full), Scenario(m, n, model.Expo)
				return l.greater(e, f, completion, 1), []Evidence{l.ratio("completion full/expo", f, e, completion)}
			})
		},
	},
	{
		ID: "aws-full-equal-same-calls", Origin: "aws", Source: analysis.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Quote: "the number of calls is approximately the same for “Full” and “Equal” jitter",
		Check: fmt.Sprintf("equal against full, paired: holds at N when calls(equal)/calls(full) lies within 1 ± %.2f (Fieller at each end)", approxSame),
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				e, f := Scenario(m, n, model.Equal), Scenario(m, n, model.Full)
				return within(l, e, f, calls, 1-approxSame, 1+approxSame), []Evidence{l.ratio("calls equal/full", e, f, calls)}
			})
		},
	},
	{
		ID: "aws-decorrelated-more-calls", Origin: "aws", Source: analysis.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Quote: "and higher for “Decorrelated”",
		Check: "decorrelated against full and equal, paired: holds at N when calls(decorrelated) exceeds both",
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				d, f, e := Scenario(m, n, model.Decorrelated), Scenario(m, n, model.Full), Scenario(m, n, model.Equal)
				return all(l.greater(d, f, calls, 1), l.greater(d, e, calls, 1)),
					[]Evidence{l.ratio("calls decorrelated/full", d, f, calls), l.ratio("calls decorrelated/equal", d, e, calls)}
			})
		},
	},
	{
		ID: "aws-expo-clear-loser", Origin: "aws", Source: analysis.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Quote: "The no-jitter exponential backoff approach is the clear loser. It not only takes more work, but also takes more time than the jittered approaches.",
		Check: "expo against full, equal and decorrelated, paired: holds at N when expo has more calls and a longer completion than each",
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				x := Scenario(m, n, model.Expo)
				var vs []Verdict
				var ev []Evidence
				for _, k := range analysis.Jittered {
					j := Scenario(m, n, k)
					vs = append(vs, l.greater(x, j, calls, 1), l.greater(x, j, completion, 1))
					ev = append(ev, l.ratio("completion expo/"+string(k), x, j, completion))
				}
				return all(vs...), ev
			})
		},
	},
	{
		ID: "aws-equal-slightly-more-work", Origin: "aws", Source: analysis.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Quote: "“Equal Jitter” is the loser. It does slightly more work than “Full Jitter”",
		Check: fmt.Sprintf("equal against full, paired: holds at N when 1 < calls(equal)/calls(full) < 1 + %.2f", approxSame),
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				e, f := Scenario(m, n, model.Equal), Scenario(m, n, model.Full)
				return within(l, e, f, calls, 1, 1+approxSame), []Evidence{l.ratio("calls equal/full", e, f, calls)}
			})
		},
	},
	{
		ID: "aws-equal-much-longer", Origin: "aws", Source: analysis.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Quote: "and takes much longer",
		Check: fmt.Sprintf("equal against full, paired: holds at N when completion(equal)/completion(full) > %.2f", much),
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				e, f := Scenario(m, n, model.Equal), Scenario(m, n, model.Full)
				return l.greater(e, f, completion, much), []Evidence{l.ratio("completion equal/full", e, f, completion)}
			})
		},
	},
	{
		ID: "aws-full-less-work-more-time-than-decorrelated", Origin: "aws", Source: analysis.AWSSource + " (Which approach do you think is best?)", Model: ModelOCC,
		Quote: "The “Full Jitter” approach uses less work, but slightly more time.",
		Check: fmt.Sprintf("full against decorrelated, paired: holds at N when calls(full) < calls(decorrelated) and 1 < completion(full)/completion(decorrelated) < %.2f", much),
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, awsGrid, func(n int) (Verdict, []Evidence) {
				f, d := Scenario(m, n, model.Full), Scenario(m, n, model.Decorrelated)
				return all(l.greater(d, f, calls, 1), within(l, f, d, completion, 1, much)),
					[]Evidence{l.ratio("calls full/decorrelated", f, d, calls), l.ratio("completion full/decorrelated", f, d, completion)}
			})
		},
	},
	{
		ID: "aws-jitter-keeps-n2", Origin: "aws", Source: analysis.AWSSource + " (the conclusion)", Model: ModelOCC,
		Quote: "none of these approaches fundamentally change the N2 nature of the work to be done",
		Check: "expo, full, equal, decorrelated: least-squares exponent of mean calls against N over N = 190, 380, 760 (a tenth of the trials, at least 100); holds when every interval lies within (1.5, 2.5)",
		check: func(l *Lab, m string) Finding {
			grid := []int{190, 380, 760}
			trials := max(100, l.opt.Trials/10)
			var vs []Verdict
			var ev []Evidence
			for _, k := range []model.Kind{model.Expo, model.Full, model.Equal, model.Decorrelated} {
				e := l.exponent(m, k, grid, calls, trials)
				vs = append(vs, nearest(e, 2))
				ev = append(ev, e)
			}
			return Finding{Model: m, Scenario: describeModel(m) + "; N = " + joinInts(grid), Verdict: all(vs...), Evidence: ev}
		},
	},
	{
		ID: "seed-expo-as-many-calls-as-fixed", Origin: "seed", Source: seedTextbook + ", section 5.3 (1) and section 8", Model: ModelCapacity,
		Quote: "ジッターなしの指数バックオフは、固定間隔リトライと総呼び出し回数が完全に一致する。",
		Check: "expo against fixed (delay d₁ = 2·base), paired: holds at N when calls are equal in every trial; fails when the paired difference's interval excludes 0",
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, seedGrid, func(n int) (Verdict, []Evidence) {
				x, f := Scenario(m, n, model.Expo), Scenario(m, n, model.Fixed)
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
		Check: "expo against fixed at N = 200, paired: holds when completion(expo)/completion(fixed) ≥ 13 (Fieller)",
		check: func(l *Lab, m string) Finding {
			return l.at(m, 200, func(n int) (Verdict, []Evidence) {
				x, f := Scenario(m, n, model.Expo), Scenario(m, n, model.Fixed)
				return l.greater(x, f, completion, 13), []Evidence{l.ratio("completion expo/fixed", x, f, completion)}
			})
		},
	},
	{
		ID: "seed-jitter-cuts-21-to-64", Origin: "seed", Source: seedTextbook + ", section 5.3 (3) and section 8", Model: ModelCapacity,
		Quote: "ジッターを加えた3方式は、いずれも固定間隔・指数バックオフに対して総呼び出し回数を21〜64%削減した。",
		Check: "full, equal, decorrelated against fixed, paired: holds at N when every cut 1 − calls(jitter)/calls(fixed) lies within [20.5%, 64.5%] (the printed range, rounded)",
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, seedGrid, func(n int) (Verdict, []Evidence) {
				f := Scenario(m, n, model.Fixed)
				var vs []Verdict
				var ev []Evidence
				for _, k := range analysis.Jittered {
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
		Quote: "削減率は N が大きくなるほど大きくなる傾向が見られた",
		Check: "full, equal, decorrelated: the cut in calls against fixed at N = 50 < at 100 < at 200 (independent runs: z test on the difference of cuts)",
		check: func(l *Lab, m string) Finding {
			var vs []Verdict
			var ev []Evidence
			for _, k := range analysis.Jittered {
				var cuts []Evidence
				for _, n := range seedGrid {
					c := cut(l.ratio(fmt.Sprintf("cut %s N=%d", k, n), Scenario(m, n, k), Scenario(m, n, model.Fixed), calls))
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
		Quote: "総呼び出し回数はDecorrelated Jitterが3設定中2つ(N=100,200)で最小",
		Check: "decorrelated against full and equal at N = 100 and 200, paired: holds when calls(decorrelated) is below both",
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, []int{100, 200}, func(n int) (Verdict, []Evidence) {
				d, f, e := Scenario(m, n, model.Decorrelated), Scenario(m, n, model.Full), Scenario(m, n, model.Equal)
				return all(l.greater(f, d, calls, 1), l.greater(e, d, calls, 1)),
					[]Evidence{l.ratio("calls decorrelated/full", d, f, calls), l.ratio("calls decorrelated/equal", d, e, calls)}
			})
		},
	},
	{
		ID: "seed-decorrelated-fastest-or-nearly", Origin: "seed", Source: seedTextbook + ", section 5.3 (4)", Model: ModelCapacity,
		Quote: "完了時間も3設定すべてでDecorrelated Jitterが最速か僅差の最速だった",
		Check: fmt.Sprintf("decorrelated against full and equal, paired: holds at N when completion(decorrelated) < (1 + %.2f) × the completion of each", nearFastest),
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, seedGrid, func(n int) (Verdict, []Evidence) {
				d, f, e := Scenario(m, n, model.Decorrelated), Scenario(m, n, model.Full), Scenario(m, n, model.Equal)
				return all(l.greater(f, d, completion, 1/(1+nearFastest)), l.greater(e, d, completion, 1/(1+nearFastest))),
					[]Evidence{l.ratio("completion decorrelated/full", d, f, completion), l.ratio("completion decorrelated/equal", d, e, completion)}
			})
		},
	},
	{
		ID: "seed-equal-widest-spread", Origin: "seed", Source: seedTextbook + ", section 5.3 (4)", Model: ModelCapacity,
		Quote: "Equal Jitterは待機時間の下限が保証される分、稀に大きな待機時間を引いた場合の完了時間のばらつき(標準偏差)が3方式中最大になる傾向も観測された。",
		Check: "equal against full and decorrelated, paired: holds at N when the variance of completion of equal exceeds both (paired squared deviations)",
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, seedGrid, func(n int) (Verdict, []Evidence) {
				e, f, d := Scenario(m, n, model.Equal), Scenario(m, n, model.Full), Scenario(m, n, model.Decorrelated)
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
		Quote: "「ジッターを入れるかどうか」の方が「どのジッターを選ぶか」よりも支配的な要因である",
		Check: "holds at N when the gap in mean calls between the better no-jitter policy (fixed or expo) and the worst jittered one exceeds the spread among the jittered ones (paired, policies ranked by their means)",
		check: func(l *Lab, m string) Finding {
			return l.overClients(m, seedGrid, func(n int) (Verdict, []Evidence) {
				d := l.jitterDominance(m, n)
				return sign(d), []Evidence{{Name: "gap − spread in calls", Value: d.Mean, CI95: d.CI95}}
			})
		},
	},
	{
		ID: "seed-expo-never-recovers", Origin: "seed", Source: seedGuide + ", section 2.3", Model: ModelCapacity,
		Quote: "このプロセスが繰り返され、システムは永久に回復できません。",
		Check: "expo at N = 100 (k = 10): the share of trials unfinished at the horizon, on the capacity and the collision server (OCC: its only server); holds on a server when the share's Clopper–Pearson interval lies above 0.9, fails when below 0.1",
		check: func(l *Lab, m string) Finding {
			trials := max(100, l.opt.Trials/10)
			if m == ModelOCC {
				e := l.censoredShare(Scenario(m, 100, model.Expo), trials)
				return Finding{Model: m, Scenario: describeModel(m) + "; N = 100", Verdict: shareVerdict(e), Evidence: []Evidence{e}}
			}
			f := Finding{Model: m, Scenario: describeModel(m) + "; capacity and collision servers; N = 100"}
			var vs []Verdict
			for _, server := range []model.Server{model.Capacity, model.Collision} {
				sc := Scenario(m, 100, model.Expo)
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
		Check: "full against equal and decorrelated at N = 100, paired: holds when the index of dispersion of calls per bin (1 tick, or 100 ms) between the initial spike and the 90% call is lowest for full",
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				f, e, d := Scenario(m, n, model.Full), Scenario(m, n, model.Equal), Scenario(m, n, model.Decorrelated)
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
		Quote: "常に「backoff / 2」の最小待機時間が保証される … Full Jitterに比べ、ランダム性の範囲が狭まるため、分散効果が（理論上は）わずかに低くなります。",
		Check: "the law of equal's delay has minimum d_n/2 for every retry n (exact), and at N = 100 its index of dispersion of calls per bin exceeds full's (paired)",
		check: func(l *Lab, m string) Finding {
			return l.at(m, 100, func(n int) (Verdict, []Evidence) {
				e, f := Scenario(m, n, model.Equal), Scenario(m, n, model.Full)
				minOK := Holds
				for r := 1; r <= e.Policy.Classes()+1; r++ {
					if law := e.Policy.Law(r, e.Policy.Base); law.Lo != e.Policy.Ceiling(r)/2 {
						minOK = Fails
					}
				}
				disp := func(b burstiness) float64 { return b.dispersion }
				return all(minOK, sign(l.burstContrast(e, f, disp))), []Evidence{
					{Name: "shortest equal delay / d_n, every n", Value: e.Policy.Law(1, e.Policy.Base).Lo / e.Policy.Ceiling(1)},
					est("index of dispersion, equal", l.burstMean(e, disp), ""),
					est("index of dispersion, full", l.burstMean(f, disp), "")}
			})
		},
	},
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
	pick := func(kinds []model.Kind, better func(a, b float64) bool) model.Scenario {
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
	noJitter := pick([]model.Kind{model.Fixed, model.Expo}, less)
	worst, best := pick(analysis.Jittered, more), pick(analysis.Jittered, less)
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
