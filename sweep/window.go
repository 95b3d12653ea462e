package sweep

import (
	"fmt"
	"strings"

	"github.com/herdlab/herd/model"
)

// roundTrips reads a sweep's latency axis: laws separated by semicolons
// when any is written as a law (uniform:2ms,8ms), else a comma list of
// durations and ranges, as the other duration fields.
func roundTrips(text string) ([]string, error) {
	law := strings.Contains(text, ";")
	for _, name := range []string{"fixed:", "uniform:", "lognormal:", "quantiles:"} {
		law = law || strings.Contains(text, name)
	}
	if !law {
		ds, err := durations(text)
		var out []string
		for _, d := range ds {
			out = append(out, d.String())
		}
		return out, err
	}
	var out []string
	for _, item := range strings.Split(text, ";") {
		r, err := model.ParseRoundTrip(item)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", item, err)
		}
		out = append(out, r.String())
	}
	return out, nil
}
