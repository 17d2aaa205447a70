package capacity

import (
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

var testClasses = []Class{{Name: "capacity-fast", Pool: "fast", PoolSize: 100, LargestRequest: 100}}

func TestAStillDriverAnswersThePoolSize(t *testing.T) {
	m := newDriverModel(testClasses, mockdriver.Moving{})
	if got := m.answer(fastOn1, time.Now()); got != 100 {
		t.Fatalf("answer %d, want the pool's 100 bytes", got)
	}
}

func TestConvergenceNeedsEveryWantedObjectRightAndNoOther(t *testing.T) {
	m := newDriverModel(testClasses, mockdriver.Moving{})
	wanted := wantedKeys(testClasses, []string{"node-1", "node-2"})
	now := time.Now()
	right := published{capacity: map[framework.CapacityKey]int64{fastOn1: 100, fastOn2: 100}}
	if missing, wrong, extra := m.mismatch(now, wanted, right); missing+wrong+extra != 0 {
		t.Fatalf("all right: %d missing, %d wrong, %d extra", missing, wrong, extra)
	}
	gone := framework.CapacityKey{Class: "capacity-fast", Segment: "node-3"}
	off := published{capacity: map[framework.CapacityKey]int64{fastOn1: 90, gone: 100}, duplicates: 1}
	if missing, wrong, extra := m.mismatch(now, wanted, off); missing != 1 || wrong != 1 || extra != 2 {
		t.Fatalf("got %d missing, %d wrong, %d extra; want node-2 missing, node-1 wrong, node-3 and a duplicate extra", missing, wrong, extra)
	}
}

func TestAScoreSummarisesTheErrorsOfThePublishedObjects(t *testing.T) {
	m := newDriverModel(testClasses, mockdriver.Moving{})
	wanted := wantedKeys(testClasses, []string{"node-1", "node-2", "node-3"})
	p := published{capacity: map[framework.CapacityKey]int64{fastOn1: 100, fastOn2: 130}}
	h := newHiddenCrossings(time.Minute)
	s, errs := m.score(time.Now(), wanted, p, h)
	if s.Objects != 2 || s.Missing != 1 || s.Stale != 1 || len(errs) != 2 {
		t.Fatalf("sample %+v with %d errors; want 2 published, node-3 missing, node-2 stale", s, len(errs))
	}
	if s.ErrorP50 != 0 || s.ErrorP99 < 0.3-1e-9 || s.ErrorP99 > 0.3+1e-9 || s.ErrorMax != s.ErrorP99 {
		t.Errorf("errors p50 %v, p99 %v, max %v; want 0, 0.3, 0.3", s.ErrorP50, s.ErrorP99, s.ErrorMax)
	}
	// 130 fits the 100-byte largest request as the driver's 100 does.
	if s.Hidden != 0 {
		t.Errorf("%d objects hide a crossing, want none", s.Hidden)
	}
}

func TestTheModelFollowsTheDriversMoves(t *testing.T) {
	moving := mockdriver.Moving{Share: 1, Amplitude: 0.3, Period: time.Minute, Seed: 5}
	m := newDriverModel(testClasses, moving)
	at := time.Date(2026, 11, 27, 0, 0, 30, 0, time.UTC)
	want := mockdriver.MovingCapacity(moving, "node-1", "fast", 100, 100, at)
	if got := m.answer(fastOn1, at); got != want {
		t.Fatalf("answer %d, want the driver's %d", got, want)
	}
}
