package mockdriver

import (
	"fmt"
	"math"
	"testing"
	"time"

	testclock "k8s.io/utils/clock/testing"
)

// movingStart is a period boundary of every period the tests use.
var movingStart = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

// movingNodes are names like a cluster's.
func movingNodes(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("node-%d", i+1)
	}
	return names
}

func TestMovingCapacityMovesTheShareOfSegmentsAsked(t *testing.T) {
	m := Moving{Share: 0.2, Amplitude: 0.3, Period: time.Minute, Seed: 7}
	moving := 0
	nodes := movingNodes(2000)
	for _, node := range nodes {
		if m.Moves(node) {
			moving++
		}
	}
	// 400 expected; a binomial's standard deviation here is about 18.
	if moving < 340 || moving > 460 {
		t.Fatalf("%d of %d segments move, want about 20%%", moving, len(nodes))
	}
	other := m
	other.Seed = 8
	same := 0
	for _, node := range nodes {
		if m.Moves(node) && other.Moves(node) {
			same++
		}
	}
	if same > 150 {
		t.Errorf("seeds 7 and 8 move %d of the same segments, want another choice (about 80)", same)
	}
}

func TestMovingCapacityStaysWithinTheAmplitudeAndHoldsForAPeriod(t *testing.T) {
	m := Moving{Share: 1, Amplitude: 0.3, Period: time.Minute, Seed: 1}
	const size = 100 * gib
	changed := 0
	for _, node := range movingNodes(50) {
		prev := int64(-1)
		for p := range 20 {
			at := movingStart.Add(time.Duration(p) * time.Minute)
			v := MovingCapacity(m, node, "fast", size, size, at)
			if v < size*7/10 || v > size*13/10 {
				t.Fatalf("%s in period %d: %d bytes, outside 100 GiB ± 30%%", node, p, v)
			}
			if late := MovingCapacity(m, node, "fast", size, size, at.Add(59*time.Second)); late != v {
				t.Fatalf("%s: %d at the start of period %d, %d at its end", node, v, p, late)
			}
			if v != prev {
				changed++
			}
			prev = v
		}
	}
	if changed < 50*20*9/10 {
		t.Errorf("the value changed %d times in 1,000 periods, want nearly every time", changed)
	}
}

func TestMovingCapacityIsAPureFunctionOfSeedSegmentPoolAndPeriod(t *testing.T) {
	m := Moving{Share: 1, Amplitude: 0.3, Period: time.Minute, Seed: 42}
	at := movingStart.Add(90 * time.Second)
	a := MovingCapacity(m, "node-1", "fast", 10*gib, 10*gib, at)
	if b := MovingCapacity(m, "node-1", "fast", 10*gib, 10*gib, at); a != b {
		t.Fatalf("two calls disagree: %d and %d", a, b)
	}
	if b := MovingCapacity(m, "node-1", "slow", 10*gib, 10*gib, at); a == b {
		t.Errorf("pools fast and slow of one segment move alike (%d)", a)
	}
	if b := MovingCapacity(m, "node-2", "fast", 10*gib, 10*gib, at); a == b {
		t.Errorf("node-1 and node-2 move alike (%d)", a)
	}
	other := m
	other.Seed = 43
	if b := MovingCapacity(other, "node-1", "fast", 10*gib, 10*gib, at); a == b {
		t.Errorf("seeds 42 and 43 move alike (%d)", a)
	}
}

func TestStillSegmentsAndUnlimitedPoolsDoNotMove(t *testing.T) {
	off := Moving{Period: time.Minute, Amplitude: 0.3}
	if got := MovingCapacity(off, "node-1", "", 5*gib, 10*gib, movingStart); got != 5*gib {
		t.Errorf("with share 0: %d, want the 5 GiB the volumes leave", got)
	}
	all := Moving{Share: 1, Amplitude: 0.3, Period: time.Minute}
	if got := MovingCapacity(all, "node-1", "", unlimited, 0, movingStart); got != unlimited {
		t.Errorf("a pool without a size: %d, want unlimited", got)
	}
}

func TestMovingCapacityNeverGoesBelowZero(t *testing.T) {
	m := Moving{Share: 1, Amplitude: 1, Period: time.Minute, Seed: 3}
	sawZero := false
	for p := range 200 {
		v := MovingCapacity(m, "node-1", "", gib/10, gib, movingStart.Add(time.Duration(p)*time.Minute))
		if v < 0 {
			t.Fatalf("period %d: %d bytes", p, v)
		}
		sawZero = sawZero || v == 0
	}
	if !sawZero {
		t.Error("a nearly full pool moving by its whole size never reported 0 in 200 periods")
	}
}

func TestPeriodsStartAtMultiplesOfThePeriodSinceTheEpoch(t *testing.T) {
	m := Moving{Period: time.Minute}
	at := time.Unix(3600, 0)
	for _, tc := range []struct {
		at   time.Time
		want int64
	}{
		{at, 60},
		{at.Add(59*time.Second + 999*time.Millisecond), 60},
		{at.Add(time.Minute), 61},
		{at.Add(-time.Nanosecond), 59},
		{time.Unix(-1, 0), -1},
	} {
		if got := m.PeriodOf(tc.at); got != tc.want {
			t.Errorf("PeriodOf(%v) = %d, want %d", tc.at.UTC(), got, tc.want)
		}
	}
}

// The driver answers GetCapacity with MovingCapacity at its clock's time,
// less what its volumes use, and keeps still segments still.
func TestGetCapacityFollowsTheMovingCapacity(t *testing.T) {
	clock := testclock.NewFakePassiveClock(movingStart)
	m := Moving{Share: 0.5, Amplitude: 0.3, Period: time.Minute, Seed: 9, Now: clock.Now}
	td := startDriver(t, Config{NodeID: "controller", Topology: true, Pools: map[string]int64{"fast": 10 * gib}, Moving: m})
	var moving, still string
	for _, node := range movingNodes(20) {
		switch {
		case m.Moves(node) && moving == "":
			moving = node
		case !m.Moves(node) && still == "":
			still = node
		}
	}
	mustCreate(t, td, createOn("on-moving", gib, "fast", moving))

	for p := range 5 {
		clock.SetTime(movingStart.Add(time.Duration(p)*time.Minute + 30*time.Second))
		want := MovingCapacity(m, moving, "fast", 9*gib, 10*gib, clock.Now())
		if want == 9*gib {
			t.Fatalf("period %d: the moving segment reports what its volumes leave; pick another seed", p)
		}
		wantAvailable(t, td, "fast", moving, want)
		wantAvailable(t, td, "fast", still, 10*gib)
	}
}

func TestInvalidMovingCapacityIsRefused(t *testing.T) {
	for _, m := range []Moving{
		{Share: -0.1, Period: time.Minute},
		{Share: 1.5, Period: time.Minute},
		{Share: math.NaN(), Period: time.Minute},
		{Share: 0.2, Amplitude: 2, Period: time.Minute},
		{Share: 0.2, Amplitude: 0.3},
	} {
		if _, err := New(Config{Capacity: gib, Moving: m}); err == nil {
			t.Errorf("%+v accepted", m)
		}
	}
}
