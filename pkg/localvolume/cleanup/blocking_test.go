package cleanup

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestBoundVolumeBlocksWithOneEvent(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners:  []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
			volumes: []*corev1.PersistentVolume{newPV("pv-db", kind, boundTo("app", "db"))},
			nodes:   []*corev1.Node{newNode(testNode)},
		})
		for range 5 {
			e.mustSync(t, keyOf(kind))
		}
		if !hasOwnerFinalizer(e.owner(t, kind)) {
			t.Fatal("finalizer removed while a PV is bound")
		}
		if w := e.writesBesidesStatus(); len(w) != 0 {
			t.Fatalf("writes = %v; a bound PV must not be touched", w)
		}
		events := e.events.all()
		if len(events) != 1 || events[0].reason != ReasonBlockedByBoundVolume {
			t.Fatalf("events = %v, want exactly one %s", events, ReasonBlockedByBoundVolume)
		}
		ev := events[0]
		if ev.eventType != corev1.EventTypeWarning || ev.object != keyOf(kind) {
			t.Errorf("event %v: want a Warning on %s", ev, keyOf(kind))
		}
		mentions(t, ev.message, "pv-db", "claim app/db", "delete claim app/db to release it")
		if got := e.metric(t, "blocked_deletions"); got != 1 {
			t.Errorf("blocked_deletions = %v, want 1", got)
		}
	})
}

// A claimRef with a UID is a binding even before the phase says Bound.
func TestBindingInProgressBlocks(t *testing.T) {
	e := newEnv(t, setup{
		owners: []ownerObject{newOwner(KindLocalVolumeSet, protectedOwner, deletingOwner)},
		volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolumeSet, boundTo("app", "db"),
			testutil.WithVolumePhase(corev1.VolumeAvailable))},
		nodes: []*corev1.Node{newNode(testNode)},
	})
	e.mustSync(t, keyOf(KindLocalVolumeSet))
	if d := e.deletes(); len(d) != 0 {
		t.Fatalf("deletes = %v; a PV being bound must not be deleted", d)
	}
	if got := withReason(e.events.all(), ReasonBlockedByBoundVolume); len(got) != 1 {
		t.Fatalf("events = %v, want one %s", e.events.all(), ReasonBlockedByBoundVolume)
	}
}

func TestRetainedVolumeBlocks(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		for _, p := range []corev1.PersistentVolumePhase{corev1.VolumeReleased, corev1.VolumeFailed} {
			t.Run(string(p), func(t *testing.T) {
				e := newEnv(t, setup{
					owners: []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
					volumes: []*corev1.PersistentVolume{newPV("pv-kept", kind,
						releasedFrom("app", "db", corev1.PersistentVolumeReclaimRetain), testutil.WithVolumePhase(p))},
					nodes: []*corev1.Node{newNode(testNode)},
				})
				for range 3 {
					e.mustSync(t, keyOf(kind))
				}
				if w := e.writesBesidesStatus(); len(w) != 0 {
					t.Fatalf("writes = %v; a retained PV must not be touched", w)
				}
				events := e.events.all()
				if len(events) != 1 || events[0].reason != ReasonBlockedByRetainedVolume || events[0].object != keyOf(kind) {
					t.Fatalf("events = %v, want exactly one %s on %s", events, ReasonBlockedByRetainedVolume, keyOf(kind))
				}
				mentions(t, events[0].message, "pv-kept", string(p), "Retain", "back up", "delete the PersistentVolume")
				if !hasOwnerFinalizer(e.owner(t, kind)) {
					t.Fatal("finalizer removed while a PV is retained")
				}
			})
		}
	})
}

// Released or Failed with policy Delete is the node agent's to wipe and
// delete: no write, no event, however often synced. A Failed PV is not
// left out (an LSO gap).
func TestDeletePolicyVolumeWaitsQuietly(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners: []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
			volumes: []*corev1.PersistentVolume{
				newPV("released", kind, releasedFrom("app", "a", corev1.PersistentVolumeReclaimDelete)),
				newPV("failed", kind, releasedFrom("app", "b", corev1.PersistentVolumeReclaimDelete), testutil.WithVolumePhase(corev1.VolumeFailed)),
				newPV("deleting", kind, testutil.Deleting()),
			},
			nodes: []*corev1.Node{newNode(testNode)},
		})
		for range 5 {
			if after := e.mustSync(t, keyOf(kind)); after != 0 {
				t.Errorf("requeue after %v, want none: the node is there", after)
			}
		}
		if w := e.writes(); len(w) != 0 {
			t.Fatalf("writes = %v, want none", w)
		}
		if ev := e.events.all(); len(ev) != 0 {
			t.Fatalf("events = %v, want none", ev)
		}
		if got := e.metric(t, "blocked_deletions"); got != 0 {
			t.Errorf("blocked_deletions = %v, want 0: waiting is not blocked", got)
		}

		// Once the agent is done with them, the owner goes.
		for _, name := range []string{"released", "failed"} {
			e.userDeletesPV(t, name)
		}
		for _, name := range []string{"released", "failed", "deleting"} {
			e.agentReleases(t, name)
		}
		e.mustSync(t, keyOf(kind))
		if e.owner(t, kind) != nil {
			t.Fatal("owner kept after the agent released every PV")
		}
	})
}

// A blockage is announced again when its reason changes, and ends when the
// PV stops blocking.
func TestBlockageFollowsTheVolume(t *testing.T) {
	e := newEnv(t, setup{
		owners:  []ownerObject{newOwner(KindLocalVolume, protectedOwner, deletingOwner)},
		volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolume, boundTo("app", "db"), testutil.WithReclaimPolicy(corev1.PersistentVolumeReclaimRetain))},
		nodes:   []*corev1.Node{newNode(testNode)},
	})
	key := keyOf(KindLocalVolume)
	e.mustSync(t, key)
	// The user deletes the claim: the PV is Released and kept.
	e.updatePV(t, "pv", testutil.WithVolumePhase(corev1.VolumeReleased))
	e.mustSync(t, key)
	e.mustSync(t, key)
	events := e.events.all()
	if len(events) != 2 || events[0].reason != ReasonBlockedByBoundVolume || events[1].reason != ReasonBlockedByRetainedVolume {
		t.Fatalf("events = %v, want %s then %s", events, ReasonBlockedByBoundVolume, ReasonBlockedByRetainedVolume)
	}
	// The user saves the data and deletes the PV: no longer blocking.
	e.userDeletesPV(t, "pv")
	e.mustSync(t, key)
	if e.ctrl.isBlocked(key) {
		t.Error("owner still remembered as blocked")
	}
	if got := e.metric(t, "blocked_deletions"); got != 0 {
		t.Errorf("blocked_deletions = %v, want 0", got)
	}
	if got := len(e.events.all()); got != 2 {
		t.Errorf("events = %v, want no more", e.events.all())
	}
}

// Each blocking PV is announced, each once.
func TestEveryBlockingVolumeAnnouncedOnce(t *testing.T) {
	e := newEnv(t, setup{
		owners: []ownerObject{newOwner(KindLocalVolumeSet, protectedOwner, deletingOwner)},
		volumes: []*corev1.PersistentVolume{
			newPV("pv-a", KindLocalVolumeSet, boundTo("app", "a")),
			newPV("pv-b", KindLocalVolumeSet, boundTo("app", "b")),
			newPV("pv-c", KindLocalVolumeSet, releasedFrom("app", "c", corev1.PersistentVolumeReclaimRetain)),
		},
		nodes: []*corev1.Node{newNode(testNode)},
	})
	for range 3 {
		e.mustSync(t, keyOf(KindLocalVolumeSet))
	}
	events := e.events.all()
	if len(events) != 3 {
		t.Fatalf("events = %v, want three", events)
	}
	for i, name := range []string{"pv-a", "pv-b", "pv-c"} {
		mentions(t, events[i].message, name)
	}
	if got := e.metric(t, "blocked_deletions"); got != 1 {
		t.Errorf("blocked_deletions = %v, want 1: one owner", got)
	}
}
