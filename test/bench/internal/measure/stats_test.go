package measure

import (
	"math"
	"testing"
	"time"
)

func TestSpreadOfSkipsUnmeasuredRuns(t *testing.T) {
	s := SpreadOf([]float64{3, math.NaN(), 1, 2})
	if s.Median != 2 || s.Min != 1 || s.Max != 3 || s.N != 3 {
		t.Errorf("SpreadOf = %+v, want median 2, min 1, max 3 over 3 runs", s)
	}
	if s := SpreadOf([]float64{4, 1}); s.Median != 2.5 {
		t.Errorf("median of two = %v, want 2.5", s.Median)
	}
	if s := SpreadOf(nil); !math.IsNaN(s.Median) {
		t.Errorf("median of none = %v, want NaN", s.Median)
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Second)
	}
	if p := Percentile(d, 50); p != 50 {
		t.Errorf("p50 of 1..100 s = %v, want 50", p)
	}
	if p := Percentile(d, 99); p != 99 {
		t.Errorf("p99 of 1..100 s = %v, want 99", p)
	}
	if p := Percentile(d[:1], 99); p != 100 {
		t.Errorf("p99 of one value = %v, want that value", p)
	}
}

func TestRatioOfMissingFiguresIsNaN(t *testing.T) {
	two, four := Spread{Median: 2, N: 1}, Spread{Median: 4, N: 1}
	if q := Ratio(two, four); q != 0.5 {
		t.Errorf("Ratio = %v, want 0.5", q)
	}
	for _, tc := range [][2]Spread{{SpreadOf(nil), four}, {two, SpreadOf(nil)}, {two, {Median: 0, N: 1}}} {
		if q := Ratio(tc[0], tc[1]); !math.IsNaN(q) {
			t.Errorf("Ratio(%+v, %+v) = %v, want NaN", tc[0], tc[1], q)
		}
	}
}
