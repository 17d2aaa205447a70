package cleanup

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/apis/local"
)

func TestUnboundVolumeDeletedWithPreconditions(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		for _, p := range []corev1.PersistentVolumePhase{corev1.VolumeAvailable, corev1.VolumePending, ""} {
			t.Run("phase "+string(p), func(t *testing.T) {
				e := newEnv(t, setup{
					owners:  []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
					volumes: []*corev1.PersistentVolume{newPV("pv", kind, testutil.WithVolumePhase(p))},
					nodes:   []*corev1.Node{newNode(testNode)},
				})
				seen := e.pv(t, "pv")
				e.mustSync(t, keyOf(kind))

				deletes := e.deletes()
				if len(deletes) != 1 || deletes[0].Name != "pv" {
					t.Fatalf("deletes = %v, want one of pv", deletes)
				}
				pre := deletes[0].DeleteOptions.Preconditions
				if pre == nil || pre.UID == nil || pre.ResourceVersion == nil {
					t.Fatalf("delete preconditions = %+v, want UID and resourceVersion", pre)
				}
				if *pre.UID != seen.UID || *pre.ResourceVersion != seen.ResourceVersion {
					t.Errorf("preconditions = UID %s, resourceVersion %s; want %s, %s", *pre.UID, *pre.ResourceVersion, seen.UID, seen.ResourceVersion)
				}
				// Being deleted, kept by the node agent's finalizer.
				pv := e.pv(t, "pv")
				if pv == nil || pv.DeletionTimestamp == nil || !slices.Contains(pv.Finalizers, local.SymlinkDeleterFinalizer) {
					t.Fatalf("PV = %+v, want it being deleted and still held by the agent's finalizer", pv)
				}
				events := e.events.all()
				if len(events) != 1 || events[0].reason != ReasonVolumeReleased || events[0].eventType != corev1.EventTypeNormal || events[0].object != keyOf(kind) {
					t.Fatalf("events = %v, want one Normal %s on %s", events, ReasonVolumeReleased, keyOf(kind))
				}
				mentions(t, events[0].message, "pv", testNode)

				// Next syncs wait for the agent: no second delete, no event.
				e.mustSync(t, keyOf(kind))
				if got := len(e.deletes()); got != 1 {
					t.Errorf("deletes = %d after the next sync, want still 1", got)
				}
				if got := len(e.events.all()); got != 1 {
					t.Errorf("events = %v, want no more", e.events.all())
				}
				if got := e.metric(t, "volumes_released_total"); got != 1 {
					t.Errorf("volumes_released_total = %v, want 1", got)
				}
				if !hasOwnerFinalizer(e.owner(t, kind)) {
					t.Error("finalizer removed while the PV is still there")
				}
			})
		}
	})
}

// A claim bound between the controller's look at the PV and its delete
// wins: the delete's preconditions fail with 409 Conflict, the sync is
// retried, and the retry sees the PV Bound and blocks instead.
func TestClaimBindingDuringDeleteWins(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners:  []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
			volumes: []*corev1.PersistentVolume{newPV("pv", kind)},
			nodes:   []*corev1.Node{newNode(testNode)},
			limiter: testutil.InstantRetries[OwnerKey](),
		})
		e.settle(t)
		// The binder binds the PV just before the delete reaches the API
		// server; the delete then meets a newer version. (Written to the
		// tracker: a reactor runs under the fake's lock.)
		testutil.BeforeNext(e.Client, func(k8stesting.Action) {
			pv := e.pv(t, "pv")
			boundTo("app", "db")(pv)
			pv.ResourceVersion = "bound-by-the-binder"
			if err := e.Client.Tracker().Update(pvGVR, pv, ""); err != nil {
				t.Error(err)
			}
		}, testutil.Verb("delete"), testutil.On("persistentvolumes"))
		key := keyOf(kind)
		// Step the loop: the handlers may have queued the owner already.
		e.ctrl.loop.Add(key)
		e.ctrl.loop.ProcessNext(e.Ctx)
		if got := e.syncs.Of(key); len(got) != 1 || !apierrors.IsConflict(got[0]) {
			t.Fatalf("syncs = %v, want one ending in a conflict", got)
		}
		if got := e.ctrl.loop.Len(); got != 1 {
			t.Fatalf("queued = %d after the conflict, want the owner back", got)
		}
		pv := e.pv(t, "pv")
		if pv.DeletionTimestamp != nil {
			t.Fatal("the bound PV was deleted")
		}
		if got := withReason(e.events.all(), ReasonVolumeReleased); len(got) != 0 {
			t.Errorf("release events = %v after a failed delete", got)
		}
		if logs := e.Logs.Errors(); len(logs) != 0 {
			t.Errorf("conflict logged as an error: %v", logs)
		}

		// The retry, on the cache that now shows the binding.
		e.settle(t)
		e.ctrl.loop.ProcessNext(e.Ctx)
		if got := e.syncs.Of(key); len(got) != 2 || got[1] != nil {
			t.Fatalf("syncs = %v, want the retry to succeed", got)
		}
		if got := len(e.deletes()); got != 1 {
			t.Errorf("deletes = %d, want only the one that failed", got)
		}
		blocked := withReason(e.events.all(), ReasonBlockedByBoundVolume)
		if len(blocked) != 1 {
			t.Fatalf("events = %v, want one %s", e.events.all(), ReasonBlockedByBoundVolume)
		}
		mentions(t, blocked[0].message, "claim app/db")
		if got := e.metric(t, "volumes_released_total"); got != 0 {
			t.Errorf("volumes_released_total = %v, want 0", got)
		}
	})
}

// The blocked PVs do not stop the others from being released in the same
// sync.
func TestMixedVolumes(t *testing.T) {
	e := newEnv(t, setup{
		owners: []ownerObject{newOwner(KindLocalVolume, protectedOwner, deletingOwner)},
		volumes: []*corev1.PersistentVolume{
			newPV("bound", KindLocalVolume, boundTo("app", "db")),
			newPV("free", KindLocalVolume),
		},
		nodes: []*corev1.Node{newNode(testNode)},
	})
	e.mustSync(t, keyOf(KindLocalVolume))
	if d := e.deletes(); len(d) != 1 || d[0].Name != "free" {
		t.Fatalf("deletes = %v, want only free", d)
	}
	events := e.events.all()
	if len(withReason(events, ReasonBlockedByBoundVolume)) != 1 || len(withReason(events, ReasonVolumeReleased)) != 1 {
		t.Fatalf("events = %v, want one block and one release", events)
	}
}
