package stats

import (
	"encoding/json"
	"testing"
)

// Nobody served: the quantiles of no values are NaN, which JSON cannot
// hold; they are written as null and read back as NaN, and finite values
// keep their bytes. (Estimate is embedded in other results, so it keeps
// encoding/json's own encoding.)
func TestNotANumberIsNullInJSON(t *testing.T) {
	var m Moments
	empty := struct {
		E Estimate `json:"e"`
		Q Quantile `json:"q"`
	}{m.Estimate(), QuantileOfSorted(nil, 0.5)}
	b, err := json.Marshal(empty)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"e":{"mean":0,"sd":0,"ci95":[null,null]},"q":{"value":null,"ci95":[null,null]}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	q := Quantile{P: 0.5, Value: 7, CI95: Interval{6, 8}}
	var qb Quantile
	if b, _ = json.Marshal(q); string(b) != `{"value":7,"ci95":[6,8]}` || json.Unmarshal(b, &qb) != nil || qb.Value != 7 || qb.CI95 != q.CI95 {
		t.Errorf("finite quantile: %s, read back %+v", b, qb)
	}
}
