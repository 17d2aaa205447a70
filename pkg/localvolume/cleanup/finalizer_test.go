package cleanup

import (
	"encoding/json"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
)

func TestFinalizerAdded(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{owners: []ownerObject{newOwner(kind)}})
		seen := e.owner(t, kind).meta.GetResourceVersion()
		e.mustSync(t, keyOf(kind))
		if !hasOwnerFinalizer(e.owner(t, kind)) {
			t.Fatal("finalizer not added")
		}
		patches := e.patches(e.ctrl.kinds[kind].gvr.Resource)
		if len(patches) != 1 || patches[0].PatchType != types.MergePatchType {
			t.Fatalf("patches = %v, want one merge patch", patches)
		}
		// Pinned to the version the decision was made on.
		var p struct {
			Metadata struct {
				ResourceVersion string            `json:"resourceVersion"`
				Finalizers      []string          `json:"finalizers"`
				Annotations     map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(patches[0].Patch, &p); err != nil {
			t.Fatal(err)
		}
		if p.Metadata.ResourceVersion != seen {
			t.Errorf("patch resourceVersion = %q, want %s", p.Metadata.ResourceVersion, seen)
		}
		// Marked in the same write, so that with the gate off only what
		// this controller added is removed.
		if p.Metadata.Annotations[ManagedByAnnotation] != managedByValue {
			t.Errorf("patch annotations = %v, want the %s marker", p.Metadata.Annotations, ManagedByAnnotation)
		}
		// Once there, it stays without further writes.
		e.mustSync(t, keyOf(kind))
		if got := e.writes(); len(got) != 1 {
			t.Errorf("writes = %v, want only the first patch", got)
		}
		if ev := e.events.all(); len(ev) != 0 {
			t.Errorf("events = %v, want none", ev)
		}
	})
}

// The gate off, the finalizer is never added and a stale one is removed,
// even from an owner whose deletion it would block, and PVs are left alone.
func TestGateOff(t *testing.T) {
	t.Run("stale finalizer removed", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, kind string) {
			e := newEnv(t, setup{owners: []ownerObject{newOwner(kind, protectedOwner)}, disabled: true})
			e.mustSync(t, keyOf(kind))
			if hasOwnerFinalizer(e.owner(t, kind)) {
				t.Fatal("stale finalizer kept with the gate off")
			}
			if got := e.metric(t, "finalizers_removed_total"); got != 1 {
				t.Errorf("finalizers_removed_total = %v, want 1", got)
			}
		})
	})
	t.Run("local-storage-operator's finalizer kept", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, kind string) {
			e := newEnv(t, setup{owners: []ownerObject{newOwner(kind, lsoOwner, deletingOwner)}, disabled: true})
			e.mustSync(t, keyOf(kind))
			if !hasOwnerFinalizer(e.owner(t, kind)) {
				t.Fatal("a finalizer this controller did not add was removed with the gate off")
			}
			if w := e.writes(); len(w) != 0 {
				t.Fatalf("writes = %v, want none", w)
			}
		})
	})
	t.Run("none added", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, kind string) {
			e := newEnv(t, setup{owners: []ownerObject{newOwner(kind)}, disabled: true})
			e.mustSync(t, keyOf(kind))
			if w := e.writes(); len(w) != 0 {
				t.Fatalf("writes = %v, want none with the gate off", w)
			}
		})
	})
	t.Run("deleting owner is not stuck", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, kind string) {
			e := newEnv(t, setup{
				owners:   []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
				volumes:  []*corev1.PersistentVolume{newPV("bound", kind, boundTo("app", "db")), newPV("free", kind)},
				disabled: true,
			})
			e.mustSync(t, keyOf(kind))
			if e.owner(t, kind) != nil {
				t.Fatal("owner still there: its finalizer was kept with the gate off")
			}
			if d := e.deletes(); len(d) != 0 {
				t.Errorf("PV deletes = %v, want none with the gate off", d)
			}
			if ev := e.events.all(); len(ev) != 0 {
				t.Errorf("events = %v, want none with the gate off", ev)
			}
		})
	})
	t.Run("PV and Node informers unused", func(t *testing.T) {
		e := newEnv(t, setup{disabled: true})
		if e.ctrl.volumeIndex != nil || e.ctrl.nodeIndex != nil {
			t.Error("the controller uses PV or Node informers with the gate off")
		}
		// Not instantiated in the factory, so never started for nothing.
		if started := e.Informers.WaitForCacheSync(e.Ctx.Done()); len(started) != 0 {
			t.Errorf("informers started with the gate off: %v", started)
		}
	})
}

func TestLastVolumeGoneRemovesFinalizer(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners:  []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
			volumes: []*corev1.PersistentVolume{newPV("pv", kind, testutil.Deleting())},
			nodes:   []*corev1.Node{newNode(testNode)},
		})
		e.mustSync(t, keyOf(kind))
		if !hasOwnerFinalizer(e.owner(t, kind)) {
			t.Fatal("finalizer removed while a PV is left")
		}
		if w := e.writes(); len(w) != 0 {
			t.Fatalf("writes = %v, want none while the node agent works", w)
		}

		e.agentReleases(t, "pv")
		e.mustSync(t, keyOf(kind))
		if e.owner(t, kind) != nil {
			t.Fatal("owner still there after its last PV went")
		}
		done := withReason(e.events.all(), ReasonDeletionCompleted)
		if len(done) != 1 || done[0].eventType != corev1.EventTypeNormal || done[0].object != keyOf(kind) {
			t.Fatalf("completion events = %v, want one Normal on %s", done, keyOf(kind))
		}
		mentions(t, done[0].message, local.LocalVolumeProtectionFinalizer, "deletion continues")
		if got := e.metric(t, "finalizers_removed_total"); got != 1 {
			t.Errorf("finalizers_removed_total = %v, want 1", got)
		}
	})
}

// An owner that never had a PV goes at once.
func TestOwnerWithoutVolumesGoesAtOnce(t *testing.T) {
	e := newEnv(t, setup{owners: []ownerObject{newOwner(KindLocalVolumeSet, protectedOwner, deletingOwner)}})
	e.mustSync(t, keyOf(KindLocalVolumeSet))
	if e.owner(t, KindLocalVolumeSet) != nil {
		t.Fatal("owner without PVs kept")
	}
}

// A PV the API server has but the cache does not show yet (the node agent
// created it just before it saw the deletion) keeps the finalizer.
func TestCompletionWaitsForAPIServer(t *testing.T) {
	e := newEnv(t, setup{owners: []ownerObject{newOwner(KindLocalVolume, protectedOwner, deletingOwner)}, limiter: testutil.InstantRetries[OwnerKey]()})
	e.settle(t)
	late := newPV("late", KindLocalVolume)
	e.Client.PrependReactor("list", "persistentvolumes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &corev1.PersistentVolumeList{Items: []corev1.PersistentVolume{*late}}, nil
	})
	key := keyOf(KindLocalVolume)
	// Step the loop: the handlers may have queued the owner already.
	e.ctrl.loop.Add(key)
	e.ctrl.loop.ProcessNext(e.Ctx)
	if got := e.syncs.Of(key); len(got) != 1 || !errors.Is(got[0], errCacheBehind) || !errors.Is(got[0], reconcile.ErrRetry) {
		t.Fatalf("syncs = %v, want one failing with %v", got, errCacheBehind)
	}
	if !hasOwnerFinalizer(e.owner(t, KindLocalVolume)) {
		t.Fatal("finalizer removed over a PV the cache did not show")
	}
	// Retried as routine, not logged as an error.
	if got := e.ctrl.loop.Len(); got != 1 {
		t.Errorf("queued = %d, want the owner back", got)
	}
	if logs := e.Logs.Errors(); len(logs) != 0 {
		t.Errorf("error logs = %v, want none", logs)
	}
}

// A finalizer removed by hand from an owner being deleted is not put back.
func TestFinalizerNotReaddedToDeletingOwner(t *testing.T) {
	e := newEnv(t, setup{
		owners:  []ownerObject{newOwner(KindLocalVolume, deletingOwner)},
		volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolume)},
	})
	e.mustSync(t, keyOf(KindLocalVolume))
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("writes = %v, want none", w)
	}
}
