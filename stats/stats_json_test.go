package stats

import (
	"encoding/json"
	"math"
	"testing"
)

// Nobody served: the mean and quantiles of no values are NaN, which JSON
// cannot hold; they are written as null and read back as NaN, and finite
// values keep their bytes.
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
	nan := Estimate{Mean: math.NaN(), SD: math.Inf(1), N: 3}
	if b, err = json.Marshal(nan); err != nil || string(b) != `{"mean":null,"sd":null,"n":3}` {
		t.Errorf("NaN estimate: %s, %v", b, err)
	}
	var back Estimate
	if err := json.Unmarshal(b, &back); err != nil || !math.IsNaN(back.Mean) || !math.IsNaN(back.SD) || back.N != 3 {
		t.Errorf("read back: %+v, %v", back, err)
	}
	fin := Estimate{Mean: 1.5, SD: 0.25, N: 4, CI95: &Interval{1, 2}}
	if b, _ = json.Marshal(fin); string(b) != `{"mean":1.5,"sd":0.25,"n":4,"ci95":[1,2]}` {
		t.Errorf("finite estimate: %s", b)
	}
	q := Quantile{P: 0.5, Value: 7, CI95: Interval{6, 8}}
	var qb Quantile
	if b, _ = json.Marshal(q); string(b) != `{"value":7,"ci95":[6,8]}` || json.Unmarshal(b, &qb) != nil || qb.Value != 7 || qb.CI95 != q.CI95 {
		t.Errorf("finite quantile: %s, read back %+v", b, qb)
	}
}
