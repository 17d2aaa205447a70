package capacity

import (
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

func TestRelativeErrorIsTheDistanceFromTheDriversAnswer(t *testing.T) {
	for _, tc := range []struct {
		published, current int64
		want               float64
	}{
		{100, 100, 0},
		{70, 100, 0.3},
		{130, 100, 0.3},
		{100, 50, 1},
		{0, 0, 0},
		{5, 0, 1},
	} {
		if got := relativeError(tc.published, tc.current); got < tc.want-1e-12 || got > tc.want+1e-12 {
			t.Errorf("relativeError(%d, %d) = %v, want %v", tc.published, tc.current, got, tc.want)
		}
	}
}

func TestQuantileIsANearestRankOfTheValues(t *testing.T) {
	var v []float64
	for i := 1; i <= 200; i++ {
		v = append(v, float64(i))
	}
	for q, want := range map[float64]float64{0.5: 100, 0.99: 198, 1: 200, 0.001: 1} {
		if got := quantile(v, q); got != want {
			t.Errorf("quantile(1..200, %v) = %v, want %v", q, got, want)
		}
	}
	if got := quantile(nil, 0.99); got != 0 {
		t.Errorf("quantile of nothing = %v, want 0", got)
	}
}

var (
	fastOn1 = framework.CapacityKey{Class: "capacity-fast", Segment: "node-1"}
	fastOn2 = framework.CapacityKey{Class: "capacity-fast", Segment: "node-2"}
)

func TestAHiddenCrossingLastsFromTheFirstSampleThatSeesItToTheFirstThatDoesNot(t *testing.T) {
	const largest = 100
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	h := newHiddenCrossings(2 * time.Minute)

	// node-1: the driver drops below the largest request at 10s; the
	// published value follows at 150s.
	h.observe(at(0), fastOn1, 120, 120, largest)
	h.observe(at(10), fastOn1, 120, 80, largest)
	h.observe(at(70), fastOn1, 120, 90, largest)
	if h.open() != 1 {
		t.Fatalf("%d objects hide a crossing, want node-1", h.open())
	}
	// A change that stays on one side hides nothing.
	h.observe(at(70), fastOn2, 130, 110, largest)
	h.observe(at(150), fastOn1, 90, 90, largest)
	if h.open() != 0 || h.Longest != 140*time.Second || h.LongestObject != fastOn1 {
		t.Fatalf("after node-1 followed: open %d, longest %s of %s; want none open, 140s of node-1", h.open(), h.Longest, h.LongestObject)
	}
	if h.Streaks != 1 || h.OverLimit != 1 {
		t.Errorf("streaks %d, over the 2-minute limit %d; want 1 and 1", h.Streaks, h.OverLimit)
	}
}

func TestHiddenCrossingsStillOpenAtTheEndCountUntilTheEnd(t *testing.T) {
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	h := newHiddenCrossings(2 * time.Minute)
	h.observe(start, fastOn1, 100, 99, 100)
	h.observe(start.Add(30*time.Second), fastOn2, 99, 100, 100)
	h.finish(start.Add(time.Minute))
	if h.open() != 0 || h.Longest != time.Minute || h.Streaks != 2 || h.OverLimit != 0 {
		t.Fatalf("open %d, longest %s, streaks %d, over %d; want 0, 1m, 2, 0", h.open(), h.Longest, h.Streaks, h.OverLimit)
	}
}

func TestAnObjectThatVanishesEndsItsStreak(t *testing.T) {
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	h := newHiddenCrossings(time.Minute)
	h.observe(start, fastOn1, 100, 50, 100)
	h.gone(start.Add(20*time.Second), fastOn1)
	if h.open() != 0 || h.Longest != 20*time.Second {
		t.Fatalf("open %d, longest %s; want the streak ended after 20s", h.open(), h.Longest)
	}
}
