package soak

import (
	"math"
	"slices"
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

// A restart (a new pid) and a standby taking the lead each start a new
// phase, a replica that is down is skipped, and only a phase long enough
// after its warm-up gets a trend, computed without the warm-up's samples.
func TestPhasesSplitAtRestartsAndTakeoversAndTrendAfterWarmUp(t *testing.T) {
	var samples []Sample
	for m := 0; m <= 16; m++ {
		r := ReplicaSample{Pid: 100, Up: true, RSSBytes: int64(1000 + 60*m), HeapInuse: 500, Goroutines: 50}
		if m%4 == 0 {
			r.LiveHeap = float64(100 + m)
		}
		switch {
		case m == 0:
			// The warm-up's spike must not count.
			r.RSSBytes = 9000
		case m == 10:
			r = ReplicaSample{}
		case m > 10 && m <= 12:
			r = ReplicaSample{Pid: 200, Up: true, RSSBytes: 500, Goroutines: 40}
		case m > 12:
			r = ReplicaSample{Pid: 200, Up: true, Leader: true, RSSBytes: 700, Goroutines: 300}
		}
		samples = append(samples, Sample{At: time.Duration(m) * time.Minute, Replicas: []ReplicaSample{r}})
	}
	got := phases(samples)
	if len(got) != 3 {
		t.Fatalf("got %d phases, want 3: %+v", len(got), got)
	}
	first := got[0]
	if first.Pid != 100 || first.From != 0 || first.To != 9*time.Minute || !first.Trend {
		t.Errorf("first phase %+v, want pid 100 from 0 to 9m with a trend", first)
	}
	// 60 bytes a minute is 3600 an hour.
	if math.Abs(first.RSSSlopePerHour-3600) > 1e-6 || math.Abs(first.GoroutinesSlopePerHour) > 1e-6 || math.Abs(first.HeapSlopePerHour) > 1e-6 {
		t.Errorf("first phase slopes %v B/h, %v heap B/h and %v goroutines/h, want 3600, 0 and 0", first.RSSSlopePerHour, first.HeapSlopePerHour, first.GoroutinesSlopePerHour)
	}
	if first.RSSFirst != 1060 || first.RSSLast != 1540 {
		t.Errorf("first phase RSS %d→%d, want 1060→1540 (after warm-up)", first.RSSFirst, first.RSSLast)
	}
	if !slices.Equal(first.LiveHeaps, []float64{104, 108}) {
		t.Errorf("first phase live heaps %v, want [104 108]: the readings after warm-up", first.LiveHeaps)
	}
	if standby, leader := got[1], got[2]; standby.Pid != 200 || standby.Leader || !leader.Leader || leader.From != 13*time.Minute || standby.Trend || leader.Trend {
		t.Errorf("after the restart %+v then %+v, want pid 200 as standby, then as leader from 13m, both too short for a trend", standby, leader)
	}
}

// A long phase whose memory rises and then levels off, as a bounded queue
// filling does, has a rising trend overall and a flat one over its second
// half; a short phase has no second-half trend.
func TestLongPhasesAlsoTrendOverTheirSecondHalf(t *testing.T) {
	var samples []Sample
	for m := 0; m <= 41; m++ {
		rss := int64(1000 + 100*min(m, 16))
		samples = append(samples, Sample{At: time.Duration(m) * time.Minute, Replicas: []ReplicaSample{{Pid: 1, Up: true, Leader: true, RSSBytes: rss, Goroutines: float64(m)}}})
	}
	got := phases(samples)
	if len(got) != 1 || !got[0].Trend || !got[0].Halves {
		t.Fatalf("phases %+v, want one with a trend and halves", got)
	}
	p := got[0]
	if p.RSSSlopePerHour <= 0 {
		t.Errorf("whole-phase RSS trend %v, want rising", p.RSSSlopePerHour)
	}
	// The second half runs from 21m to 41m: flat RSS, goroutines up by 60/h.
	if math.Abs(p.RSSLateSlopePerHour) > 1e-6 || math.Abs(p.GoroutinesLateSlopePerHour-60) > 1e-6 {
		t.Errorf("second-half trends %v B/h and %v goroutines/h, want 0 and 60", p.RSSLateSlopePerHour, p.GoroutinesLateSlopePerHour)
	}

	short := phases(samples[:20])
	if len(short) != 1 || short[0].Halves {
		t.Errorf("a 19-minute phase %+v, want no second-half trend", short)
	}
}
