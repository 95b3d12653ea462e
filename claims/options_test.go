package claims

import "testing"

func TestRunsCountsTheClaimsOfAnOrigin(t *testing.T) {
	if n, trials := (Options{}).Runs(); n != len(All()) || trials != DefaultTrials {
		t.Errorf("every origin: Runs = %d claims, %d trials; want %d, %d", n, trials, len(All()), DefaultTrials)
	}
	if n, trials := (Options{Origin: OriginContention, Trials: 7}).Runs(); n != ContentionClaims() || trials != ContentionTrials {
		t.Errorf("contention: Runs = %d claims, %d trials; want %d, %d (its own budget)", n, trials, ContentionClaims(), ContentionTrials)
	}
	seed := 0
	for _, c := range All() {
		if c.Origin == "seed" {
			seed++
		}
	}
	if n, trials := (Options{Origin: "seed", Trials: 30}).Runs(); n != seed || trials != 30 || seed == 0 {
		t.Errorf("seed: Runs = %d claims, %d trials; want %d (> 0), 30", n, trials, seed)
	}
	for o, want := range map[string]bool{"": true, "aws": true, "seed": false, OriginControls: false, OriginContention: false} {
		if got := (Options{Origin: o}).JudgesScaling(); got != want {
			t.Errorf("origin %q: JudgesScaling = %v, want %v", o, got, want)
		}
	}
}
