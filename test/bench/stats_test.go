package bench

import (
	"math"
	"testing"
	"time"
)

func TestSpreadOfSkipsUnmeasuredRuns(t *testing.T) {
	s := spreadOf([]float64{3, math.NaN(), 1, 2})
	if s.Median != 2 || s.Min != 1 || s.Max != 3 || s.N != 3 {
		t.Errorf("spreadOf = %+v, want median 2, min 1, max 3 over 3 runs", s)
	}
	if s := spreadOf([]float64{4, 1}); s.Median != 2.5 {
		t.Errorf("median of two = %v, want 2.5", s.Median)
	}
	if s := spreadOf(nil); !math.IsNaN(s.Median) {
		t.Errorf("median of none = %v, want NaN", s.Median)
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Second)
	}
	if p := percentile(d, 50); p != 50 {
		t.Errorf("p50 of 1..100 s = %v, want 50", p)
	}
	if p := percentile(d, 99); p != 99 {
		t.Errorf("p99 of 1..100 s = %v, want 99", p)
	}
	if p := percentile(d[:1], 99); p != 100 {
		t.Errorf("p99 of one value = %v, want that value", p)
	}
}

func TestFmtSpread(t *testing.T) {
	for _, tc := range []struct {
		s    Spread
		want string
	}{
		{Spread{Median: 1.234, Min: 1, Max: 2, N: 3}, "1.23 s (1.00–2.00)"},
		{Spread{Median: 1.234, Min: 1.231, Max: 1.234, N: 3}, "1.23 s"},
		{Spread{Median: 5, Min: 1, Max: 9, N: 1}, "5.00 s"},
		{Spread{Median: math.NaN()}, "–"},
	} {
		if got := fmtSpread(tc.s, 2, " s"); got != tc.want {
			t.Errorf("fmtSpread(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
