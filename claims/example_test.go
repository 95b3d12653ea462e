package claims_test

import (
	"encoding/json"
	"fmt"

	"github.com/herdlab/herd/claims"
	"github.com/herdlab/herd/stats"
)

// The four verdicts, as the JSON of herd claims spells them.
func ExampleVerdict() {
	b, _ := json.Marshal([]claims.Verdict{claims.Holds, claims.Fails, claims.HoldsOnlyWhen, claims.Inconclusive})
	fmt.Println(string(b))
	// Output:
	// ["holds","fails","holds-only-when","inconclusive"]
}

// A number behind a verdict, with its 95% interval, as reports print it.
func ExampleEvidence_String() {
	e := claims.Evidence{Name: "calls full/expo", Value: 0.43125, CI95: &stats.Interval{0.4102, 0.4523}}
	fmt.Println(e)
	fmt.Println(claims.Evidence{Name: "bottom calls per request", Value: 243, Unit: "calls"})
	// Output:
	// calls full/expo = 0.4313 [0.4102, 0.4523]
	// bottom calls per request = 243 calls
}
