package finalizer

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

type gauge struct{ value float64 }

func (g *gauge) Set(v float64) { g.value = v }

func newHolds() (*Holds[string], *record.FakeRecorder, *gauge) {
	events := record.NewFakeRecorder(10)
	g := &gauge{}
	return NewHolds[string](HoldsOptions{Gauge: g, Recorder: events, HeldReason: "Held", ReleasedReason: "Released"}), events, g
}

func pv(uid string) *v1.PersistentVolume {
	return &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv", UID: types.UID("uid-" + uid)}}
}

func TestHoldIsAnnouncedOnceAndCounted(t *testing.T) {
	h, events, g := newHolds()
	obj := pv("1")
	h.Hold("pv", obj.UID, obj, "claim-a", "held by a")
	h.Hold("pv", obj.UID, obj, "claim-a", "held by a")
	if got := testutil.Drain(events.Events); len(got) != 1 || got[0] != "Normal Held held by a" {
		t.Errorf("events: %v", got)
	}
	if g.value != 1 {
		t.Errorf("gauge %v", g.value)
	}
}

func TestHoldByAnotherIsAnnouncedAgain(t *testing.T) {
	h, events, _ := newHolds()
	obj := pv("1")
	h.Hold("pv", obj.UID, obj, "pod-a", "held by a")
	h.Hold("pv", obj.UID, obj, "pod-b", "held by b")
	if got := testutil.Drain(events.Events); len(got) != 2 {
		t.Errorf("events: %v", got)
	}
	if by, ok := h.HeldBy("pv", obj.UID); !ok || by != "pod-b" {
		t.Errorf("held by %q %v", by, ok)
	}
}

func TestReleaseAnnouncesOnlyAHeldObject(t *testing.T) {
	h, events, g := newHolds()
	obj := pv("1")
	if h.Release("pv", obj.UID, obj, "free", false) {
		t.Error("an object never held was announced released")
	}
	h.Hold("pv", obj.UID, obj, "claim", "held")
	if !h.Release("pv", obj.UID, obj, "free", false) {
		t.Error("a held object was released silently")
	}
	if got := testutil.Drain(events.Events); len(got) != 2 || got[1] != "Normal Released free" {
		t.Errorf("events: %v", got)
	}
	if g.value != 0 {
		t.Errorf("gauge %v", g.value)
	}
}

func TestReleaseOfAnEarlierObjectOfTheNameIsSilent(t *testing.T) {
	h, events, _ := newHolds()
	old, replacement := pv("1"), pv("2")
	h.Hold("pv", old.UID, old, "claim", "held")
	testutil.Drain(events.Events)
	if h.Release("pv", replacement.UID, replacement, "free", false) {
		t.Error("the replacement was announced released")
	}
	if h.IsHeld("pv") {
		t.Error("the old hold survived")
	}
}

func TestReleaseSeenHeldBeforeTheWriteIsAnnounced(t *testing.T) {
	h, events, _ := newHolds()
	obj := pv("1")
	h.Hold("pv", obj.UID, obj, "claim", "held")
	h.Forget("pv") // the deletion reached the informer first
	if !h.Release("pv", obj.UID, obj, "free", true) {
		t.Error("release seen held before the write was not announced")
	}
	if got := testutil.Drain(events.Events); len(got) != 2 {
		t.Errorf("events: %v", got)
	}
}

func TestForgetIsSilentAndUncounts(t *testing.T) {
	h, events, g := newHolds()
	obj := pv("1")
	h.Hold("pv", obj.UID, obj, "claim", "held")
	testutil.Drain(events.Events)
	if !h.Forget("pv") || h.Forget("pv") {
		t.Error("Forget reports wrongly whether it was held")
	}
	if got := testutil.Drain(events.Events); len(got) != 0 || g.value != 0 || h.Len() != 0 {
		t.Errorf("events %v gauge %v len %d", got, g.value, h.Len())
	}
}

// A hold starts at its object's deletion, or when it is first held for an
// object not being deleted; a change of holder keeps the start, and the
// oldest current hold is what Oldest reports.
func TestOldestHold(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	fake := clocktesting.NewFakePassiveClock(now)
	h := NewHolds[string](HoldsOptions{Recorder: record.NewFakeRecorder(10), HeldReason: "Held", ReleasedReason: "Released", Clock: fake})
	if _, ok := h.Oldest(); ok {
		t.Fatal("an empty Holds reports a hold")
	}

	deleting := pv("1")
	deletedAt := metav1.NewTime(now.Add(-time.Hour))
	deleting.DeletionTimestamp = &deletedAt
	h.Hold("deleting", deleting.UID, deleting, "pod-a", "held")
	fake.SetTime(now.Add(time.Minute))
	h.Hold("live", pv("2").UID, pv("2"), "claim", "held")
	if got, ok := h.Oldest(); !ok || !got.Equal(deletedAt.Time) {
		t.Errorf("oldest %s %v, want the deletion time %s", got, ok, deletedAt.Time)
	}

	// Another holder of the same object: the hold goes on.
	h.Hold("live", pv("2").UID, pv("2"), "another claim", "held")
	h.Release("deleting", deleting.UID, deleting, "free", false)
	if got, ok := h.Oldest(); !ok || !got.Equal(now.Add(time.Minute)) {
		t.Errorf("oldest %s %v, want the first hold of the live object %s", got, ok, now.Add(time.Minute))
	}
	h.Forget("live")
	if _, ok := h.Oldest(); ok {
		t.Error("a Holds with every hold ended reports a hold")
	}
}
