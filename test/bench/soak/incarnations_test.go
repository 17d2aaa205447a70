package soak

import (
	"math"
	"testing"
	"time"
)

func TestSlopeOfALineIsItsGradient(t *testing.T) {
	x := []float64{0, 1, 2, 3}
	y := []float64{5, 7, 9, 11}
	if got := slope(x, y); math.Abs(got-2) > 1e-9 {
		t.Errorf("slope = %v, want 2", got)
	}
}

// A restart (a new pid) starts a new incarnation, a replica that is down
// is skipped, and only an incarnation long enough after its warm-up gets a
// trend, computed without the warm-up's samples.
func TestIncarnationsSplitAtRestartsAndTrendAfterWarmUp(t *testing.T) {
	var samples []Sample
	for m := 0; m <= 12; m++ {
		r := ReplicaSample{Pid: 100, Up: true, RSSBytes: int64(1000 + 60*m), Goroutines: 50}
		if m == 0 {
			// The warm-up's spike must not count.
			r.RSSBytes = 9000
		}
		switch {
		case m == 8:
			r = ReplicaSample{}
		case m > 8:
			r = ReplicaSample{Pid: 200, Up: true, RSSBytes: 500, Goroutines: 40}
		}
		samples = append(samples, Sample{At: time.Duration(m) * time.Minute, Replicas: []ReplicaSample{r}})
	}
	got := incarnations(samples)
	if len(got) != 2 {
		t.Fatalf("got %d incarnations, want 2: %+v", len(got), got)
	}
	first, second := got[0], got[1]
	if first.Pid != 100 || first.From != 0 || first.To != 7*time.Minute || !first.Trend {
		t.Errorf("first incarnation %+v, want pid 100 from 0 to 7m with a trend", first)
	}
	// 60 bytes a minute is 3600 an hour.
	if math.Abs(first.RSSSlopePerHour-3600) > 1e-6 || math.Abs(first.GoroutinesSlopePerHour) > 1e-6 {
		t.Errorf("first incarnation slopes %v B/h and %v goroutines/h, want 3600 and 0", first.RSSSlopePerHour, first.GoroutinesSlopePerHour)
	}
	if first.RSSFirst != 1060 || first.RSSLast != 1420 {
		t.Errorf("first incarnation RSS %d→%d, want 1060→1420 (after warm-up)", first.RSSFirst, first.RSSLast)
	}
	if second.Pid != 200 || second.Trend {
		t.Errorf("second incarnation %+v, want pid 200 without a trend (too short)", second)
	}
}
