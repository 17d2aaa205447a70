package cleanup

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/apis/local"
)

// checkAbandoned checks that PV name was deleted with preconditions (if
// deleted is set), lost its symlink-deleter finalizer through a patch
// pinned to its resourceVersion, and was announced once with a Warning
// naming it, its node and why.
func checkAbandoned(t *testing.T, e *env, kind, name string, deleted bool, why string) {
	t.Helper()
	if deleted {
		d := e.deletes()
		if len(d) == 0 || d[len(d)-1].Name != name || d[len(d)-1].DeleteOptions.Preconditions == nil ||
			d[len(d)-1].DeleteOptions.Preconditions.ResourceVersion == nil || d[len(d)-1].DeleteOptions.Preconditions.UID == nil {
			t.Fatalf("deletes = %v, want %s deleted with preconditions", d, name)
		}
	}
	patches := e.patches("persistentvolumes")
	if len(patches) != 1 || patches[0].Name != name {
		t.Fatalf("PV patches = %v, want one of %s", patches, name)
	}
	var p struct {
		Metadata struct {
			ResourceVersion string   `json:"resourceVersion"`
			Finalizers      []string `json:"finalizers"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(patches[0].Patch, &p); err != nil {
		t.Fatal(err)
	}
	if p.Metadata.ResourceVersion == "" || slices.Contains(p.Metadata.Finalizers, local.SymlinkDeleterFinalizer) {
		t.Errorf("patch %s: want it pinned to a resourceVersion and without %s", patches[0].Patch, local.SymlinkDeleterFinalizer)
	}
	if pv := e.pv(t, name); pv != nil {
		t.Errorf("PV %s still there: %+v", name, pv)
	}
	abandoned := withReason(e.events.all(), ReasonVolumeAbandoned)
	if len(abandoned) != 1 || abandoned[0].eventType != corev1.EventTypeWarning || abandoned[0].object != keyOf(kind) {
		t.Fatalf("events = %v, want one Warning %s on %s", e.events.all(), ReasonVolumeAbandoned, keyOf(kind))
	}
	mentions(t, abandoned[0].message, name, "node "+testNode, why, local.SymlinkDeleterFinalizer, "left untouched", "by hand")
	if got := e.metric(t, "volumes_abandoned_total"); got != 1 {
		t.Errorf("volumes_abandoned_total = %v, want 1", got)
	}
}

func TestGoneNodeAfterGrace(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		// No Node for testNode.
		e := newEnv(t, setup{
			owners:  []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
			volumes: []*corev1.PersistentVolume{newPV("pv", kind, releasedFrom("app", "db", corev1.PersistentVolumeReclaimDelete))},
		})
		key := keyOf(kind)
		if after := e.mustSync(t, key); after != testGrace {
			t.Fatalf("first sync: requeue after %v, want the grace period %v", after, testGrace)
		}
		if w := e.writes(); len(w) != 0 {
			t.Fatalf("writes = %v within the grace period", w)
		}
		e.clock.Step(testGrace)
		if after := e.mustSync(t, key); after != 0 {
			t.Errorf("requeue after %v once lost, want none", after)
		}
		checkAbandoned(t, e, kind, "pv", true, nodeMissing)

		e.mustSync(t, key)
		if e.owner(t, kind) != nil {
			t.Fatal("owner kept after its lost PV was let go")
		}
	})
}

// An unbound PV is deleted at once, even while its node's grace period
// runs; only letting go of the finalizer waits.
func TestGoneNodeUnboundVolume(t *testing.T) {
	e := newEnv(t, setup{
		owners:  []ownerObject{newOwner(KindLocalVolume, protectedOwner, deletingOwner)},
		volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolume)},
	})
	key := keyOf(KindLocalVolume)
	if after := e.mustSync(t, key); after != testGrace {
		t.Fatalf("requeue after %v, want %v", after, testGrace)
	}
	if d := e.deletes(); len(d) != 1 {
		t.Fatalf("deletes = %v, want the unbound PV deleted at once", d)
	}
	if p := e.patches("persistentvolumes"); len(p) != 0 {
		t.Fatalf("PV patches = %v within the grace period", p)
	}
	e.clock.Step(testGrace)
	e.mustSync(t, key)
	checkAbandoned(t, e, KindLocalVolume, "pv", false, nodeMissing)
	if got := len(e.deletes()); got != 1 {
		t.Errorf("deletes = %d, want no second delete of a PV being deleted", got)
	}
}

func TestGoneNodeWithinGrace(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners:  []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
			volumes: []*corev1.PersistentVolume{newPV("pv", kind, testutil.Deleting())},
		})
		key := keyOf(kind)
		if after := e.mustSync(t, key); after != testGrace {
			t.Fatalf("requeue after %v, want %v", after, testGrace)
		}
		e.clock.Step(testGrace / 2)
		if after := e.mustSync(t, key); after != testGrace/2 {
			t.Fatalf("requeue after %v, want the remaining %v", after, testGrace/2)
		}
		e.clock.Step(testGrace/2 - time.Second)
		if after := e.mustSync(t, key); after != time.Second {
			t.Fatalf("requeue after %v, want the remaining 1s", after)
		}
		if w := e.writes(); len(w) != 0 {
			t.Fatalf("writes = %v within the grace period", w)
		}
		if ev := e.events.all(); len(ev) != 0 {
			t.Fatalf("events = %v within the grace period", ev)
		}
	})
}

// A node that comes back within the grace period is not gone, and if it
// goes again its grace period starts over.
func TestReturningNodeRestartsGrace(t *testing.T) {
	e := newEnv(t, setup{
		owners:  []ownerObject{newOwner(KindLocalVolumeSet, protectedOwner, deletingOwner)},
		volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolumeSet, testutil.Deleting())},
	})
	key := keyOf(KindLocalVolumeSet)
	e.mustSync(t, key)
	e.clock.Step(testGrace - time.Minute)
	e.createNode(t, newNode(testNode))
	e.Eventually(t, "the node's return to be noticed", func() bool {
		e.ctrl.mu.Lock()
		defer e.ctrl.mu.Unlock()
		return len(e.ctrl.unreachable) == 0
	})
	e.deleteNode(t, testNode)
	e.clock.Step(time.Minute)
	if after := e.mustSync(t, key); after != testGrace {
		t.Fatalf("requeue after %v, want a fresh grace period %v", after, testGrace)
	}
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("writes = %v: a node gone again was taken for gone at once", w)
	}
}

func TestUnselectedNode(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners: []ownerObject{newOwner(kind, protectedOwner, deletingOwner,
				withNodeSelector(selectorIn("storage", "local")))},
			volumes: []*corev1.PersistentVolume{newPV("pv", kind, testutil.Deleting())},
			nodes:   []*corev1.Node{newNode(testNode, "storage", "none")},
		})
		key := keyOf(kind)
		if after := e.mustSync(t, key); after != testGrace {
			t.Fatalf("requeue after %v, want %v", after, testGrace)
		}
		if w := e.writes(); len(w) != 0 {
			t.Fatalf("writes = %v within the grace period", w)
		}
		e.clock.Step(testGrace)
		e.mustSync(t, key)
		checkAbandoned(t, e, kind, "pv", false, nodeUnselected)
	})
}

// The node the selector still selects, or that has its agent, is never
// lost, however long the wait.
func TestSelectedNodeIsKept(t *testing.T) {
	for name, s := range map[string]*corev1.NodeSelector{
		"matching selector": selectorIn("storage", "local"),
		"no selector":       nil,
		"invalid selector": {NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "storage", Operator: "Like", Values: []string{"l*"}},
		}}}},
	} {
		t.Run(name, func(t *testing.T) {
			opts := []ownerOption{protectedOwner, deletingOwner}
			if s != nil {
				opts = append(opts, withNodeSelector(s))
			}
			e := newEnv(t, setup{
				owners:  []ownerObject{newOwner(KindLocalVolume, opts...)},
				volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolume, testutil.Deleting())},
				nodes:   []*corev1.Node{newNode(testNode, "storage", "local")},
			})
			for range 2 {
				if after := e.mustSync(t, keyOf(KindLocalVolume)); after != 0 {
					t.Fatalf("requeue after %v, want none", after)
				}
				e.clock.Step(2 * testGrace)
			}
			if w := e.writes(); len(w) != 0 {
				t.Fatalf("writes = %v, want none", w)
			}
		})
	}
}

// Bound and retained PVs on a lost node still block: only the user can let
// go of a claim or of kept data.
func TestGoneNodeKeepsBlockingVolumes(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners: []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
			volumes: []*corev1.PersistentVolume{
				newPV("bound", kind, boundTo("app", "db")),
				newPV("kept", kind, releasedFrom("app", "old", corev1.PersistentVolumeReclaimRetain)),
			},
		})
		for range 2 {
			e.mustSync(t, keyOf(kind))
			e.clock.Step(2 * testGrace)
		}
		if w := e.writesBesidesStatus(); len(w) != 0 {
			t.Fatalf("writes = %v; blocking PVs on a lost node must not be touched", w)
		}
		events := e.events.all()
		if len(withReason(events, ReasonBlockedByBoundVolume)) != 1 || len(withReason(events, ReasonBlockedByRetainedVolume)) != 1 || len(events) != 2 {
			t.Fatalf("events = %v, want one of each blockage", events)
		}
	})
}

// Nothing is taken for gone before the Node cache has synced.
func TestNodeCacheNotSynced(t *testing.T) {
	e := newEnv(t, setup{
		owners:  []ownerObject{newOwner(KindLocalVolume, protectedOwner, deletingOwner)},
		volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolume, testutil.Deleting())},
	})
	e.ctrl.nodesSynced = func() bool { return false }
	for range 2 {
		e.mustSync(t, keyOf(KindLocalVolume))
		e.clock.Step(2 * testGrace)
	}
	if w := e.writes(); len(w) != 0 {
		t.Fatalf("writes = %v before the Node cache synced", w)
	}
}

// The PV's node is found from its node affinity when it lacks the label.
func TestNodeFromAffinity(t *testing.T) {
	withoutLabel := testutil.VolumeFunc(func(pv *corev1.PersistentVolume) { delete(pv.Labels, local.NodeLabel) })
	e := newEnv(t, setup{
		owners:  []ownerObject{newOwner(KindLocalVolume, protectedOwner, deletingOwner)},
		volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolume, testutil.Deleting(), onNode("node-2"), withoutLabel)},
		nodes:   []*corev1.Node{newNode(testNode)},
	})
	if after := e.mustSync(t, keyOf(KindLocalVolume)); after != testGrace {
		t.Fatalf("requeue after %v, want %v: node-2 of the affinity is missing", after, testGrace)
	}
}
