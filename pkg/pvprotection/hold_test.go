package pvprotection

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestBoundPVIsHeldWithOneEvent(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv", protected, testutil.Deleting(), testutil.BoundTo("ns", "db", ""))}})
	for range 5 {
		if err := e.sync(t, "pv"); err != nil {
			t.Fatal(err)
		}
	}
	if !e.hasFinalizer(t, "pv") {
		t.Fatal("finalizer removed from a Bound PV")
	}
	if got := e.patches(); got != 0 {
		t.Errorf("patches = %d; a held PV must not be written", got)
	}
	events := e.Events.Drain()
	held := testutil.WithReason(events, ReasonDeletionHeld)
	if len(held) != 1 || len(events) != 1 {
		t.Fatalf("events = %v, want exactly one %s", events, ReasonDeletionHeld)
	}
	if !strings.Contains(held[0], "claim ns/db") {
		t.Errorf("event %q does not name the claim ns/db", held[0])
	}
}

func TestHoldIsReportedAgainForAnotherClaim(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv", protected, testutil.Deleting(), testutil.BoundTo("ns", "db", ""))}})
	if err := e.sync(t, "pv"); err != nil {
		t.Fatal(err)
	}
	testutil.UpdatePV(t, e.Client, "pv", testutil.BoundTo("ns", "db2", ""))
	testutil.WaitCachedThat(t, e.Timeout, e.store, "pv", func(pv *v1.PersistentVolume) bool { return pv.Spec.ClaimRef.Name == "db2" })
	for range 2 {
		if err := e.sync(t, "pv"); err != nil {
			t.Fatal(err)
		}
	}
	held := testutil.WithReason(e.Events.Drain(), ReasonDeletionHeld)
	if len(held) != 2 || !strings.HasSuffix(held[0], "claim ns/db") || !strings.HasSuffix(held[1], "claim ns/db2") {
		t.Fatalf("hold events = %v, want one for ns/db then one for ns/db2", held)
	}
}

func TestReleasedPVLosesFinalizer(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv", protected, testutil.Deleting(), testutil.BoundTo("ns", "db", ""))}})
	e.run(t)
	e.Eventually(t, "the hold event", func() bool { return e.ctrl.holds.IsHeld("pv") })
	if !e.hasFinalizer(t, "pv") {
		t.Fatal("finalizer removed while Bound")
	}
	testutil.UpdatePV(t, e.Client, "pv", testutil.WithVolumePhase(v1.VolumeReleased))
	e.Eventually(t, "the finalizer to go", func() bool { return !e.hasFinalizer(t, "pv") })
	e.Eventually(t, "the release to be recorded", func() bool { return !e.ctrl.holds.IsHeld("pv") })
	events := e.Events.Drain()
	if len(testutil.WithReason(events, ReasonDeletionHeld)) != 1 || len(testutil.WithReason(events, ReasonDeletionReleased)) != 1 || len(events) != 2 {
		t.Fatalf("events = %v, want one %s then one %s", events, ReasonDeletionHeld, ReasonDeletionReleased)
	}
	if !strings.HasSuffix(events[1], "no longer bound") {
		t.Errorf("release event %q does not say the volume is no longer bound", events[1])
	}
}

func TestNeverBoundPVIsReleasedAtOnce(t *testing.T) {
	phases := []v1.PersistentVolumePhase{v1.VolumeAvailable, v1.VolumePending, v1.VolumeFailed, v1.VolumeReleased}
	var volumes []*v1.PersistentVolume
	for _, p := range phases {
		volumes = append(volumes, newPV(strings.ToLower(string(p)), protected, testutil.Deleting(), testutil.WithVolumePhase(p)))
	}
	e := newEnv(t, setup{volumes: volumes})
	for _, p := range phases {
		name := strings.ToLower(string(p))
		if err := e.sync(t, name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e.hasFinalizer(t, name) {
			t.Errorf("%s: finalizer kept on a PV no claim is bound to", name)
		}
	}
	// Never held, so nothing to announce.
	if ev := e.Events.Drain(); len(ev) != 0 {
		t.Errorf("events = %v, want none", ev)
	}
}

func TestRemovalKeepsOtherFinalizers(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv", testutil.Deleting(), testutil.WithVolumePhase(v1.VolumeReleased),
		testutil.WithFinalizers("example.com/a", Finalizer, "example.com/b"))}})
	if err := e.sync(t, "pv"); err != nil {
		t.Fatal(err)
	}
	got := testutil.PV(t, e.Client, "pv").Finalizers
	if len(got) != 2 || got[0] != "example.com/a" || got[1] != "example.com/b" {
		t.Fatalf("finalizers = %v, want [example.com/a example.com/b]", got)
	}
}

// The finalizer may go without this controller: kube-controller-manager's
// controller removes it once the PV is Released, an administrator may patch
// it away from a PV that is still Bound. Either way the hold is over.
func TestHoldEndsWhenFinalizerRemovedElsewhere(t *testing.T) {
	for name, change := range map[string]func(*v1.PersistentVolume){
		"released": func(pv *v1.PersistentVolume) {
			pv.Finalizers = nil
			pv.Status.Phase = v1.VolumeReleased
		},
		"by hand while bound": func(pv *v1.PersistentVolume) { pv.Finalizers = nil },
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv", protected, testutil.Deleting(), testutil.BoundTo("ns", "db", ""))}})
			e.run(t)
			e.Eventually(t, "the hold", func() bool { return e.ctrl.holds.IsHeld("pv") })
			testutil.UpdatePV(t, e.Client, "pv", change)
			e.Eventually(t, "the hold to end", func() bool { return !e.ctrl.holds.IsHeld("pv") })
			if got := e.patches(); got != 0 {
				t.Errorf("patches = %d, want none: the finalizer was already gone", got)
			}
			if got := testutil.WithReason(e.Events.Drain(), ReasonDeletionReleased); len(got) != 1 || !strings.Contains(got[0], "removed by someone else") {
				t.Errorf("release events = %v, want one saying the finalizer was removed elsewhere", got)
			}
			if got := e.metric(t, "held_volumes"); got != 0 {
				t.Errorf("held_volumes = %v, want 0", got)
			}
		})
	}
}

// A held PV that changes otherwise is looked at again, and stays held
// without a second event. The check runs after the sync that update caused,
// which the loop's Processed hook reports.
func TestHeldPVStaysHeldThroughAnUpdate(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv", protected, testutil.Deleting(), testutil.BoundTo("ns", "db", ""))}})
	e.run(t)
	// The informer's add is the only event so far: one sync, which holds.
	if err := e.syncs.WaitAfter(t, e.Timeout, "pv", 0); err != nil {
		t.Fatal(err)
	}
	if !e.ctrl.holds.IsHeld("pv") {
		t.Fatal("a Bound PV being deleted is not held")
	}
	testutil.UpdatePV(t, e.Client, "pv", func(pv *v1.PersistentVolume) { pv.Annotations = map[string]string{"example.com/touched": "yes"} })
	if err := e.syncs.WaitAfter(t, e.Timeout, "pv", 1); err != nil {
		t.Fatal(err)
	}
	if !e.ctrl.holds.IsHeld("pv") || !e.hasFinalizer(t, "pv") {
		t.Fatal("the PV is still Bound and must stay held")
	}
	events := e.Events.Drain()
	if len(events) != 1 || len(testutil.WithReason(events, ReasonDeletionHeld)) != 1 {
		t.Errorf("events = %v, want the one %s", events, ReasonDeletionHeld)
	}
	if got := e.patches(); got != 0 {
		t.Errorf("patches = %d; a held PV must not be written", got)
	}
	if got := e.metric(t, "held_volumes"); got != 1 {
		t.Errorf("held_volumes = %v, want 1", got)
	}
}
