package cleanup

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
)

// status reads an owner's status from the fake API server, as the
// controller sees it.
func (e *env) status(t *testing.T, kind string) *owner {
	t.Helper()
	o := e.owner(t, kind)
	if o == nil {
		t.Fatalf("%s is gone", keyOf(kind))
	}
	return o
}

// blockedCondition is the owner's DeletionBlocked condition; nil if it has
// none.
func (e *env) blockedCondition(t *testing.T, kind string) *metav1.Condition {
	t.Helper()
	return meta.FindStatusCondition(e.status(t, kind).conditions, local.ConditionDeletionBlocked)
}

func TestBlockedDeletionSetsDeletionBlockedCondition(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		owner := newOwner(kind, protectedOwner, deletingOwner)
		owner.SetGeneration(3)
		e := newEnv(t, setup{
			owners:  []ownerObject{owner},
			volumes: []*corev1.PersistentVolume{newPV("pv-db", kind, boundTo("app", "db")), newPV("pv-free", kind, testutil.Deleting())},
			nodes:   []*corev1.Node{newNode(testNode)},
		})
		seen := e.owner(t, kind).meta.GetResourceVersion()
		e.mustSync(t, keyOf(kind))

		cond := e.blockedCondition(t, kind)
		if cond == nil {
			t.Fatalf("no %s condition; status %+v", local.ConditionDeletionBlocked, e.status(t, kind))
		}
		if cond.Status != metav1.ConditionTrue || cond.Reason != ConditionReasonBoundVolumes || cond.ObservedGeneration != 3 {
			t.Errorf("condition = %+v, want True, %s, observedGeneration 3", cond, ConditionReasonBoundVolumes)
		}
		if !cond.LastTransitionTime.Time.Equal(e.clock.Now()) {
			t.Errorf("lastTransitionTime = %v, want %v", cond.LastTransitionTime, e.clock.Now())
		}
		// What blocks and what the user must do; not the PV that only
		// waits for its node agent.
		mentions(t, cond.Message, "1 PersistentVolume", "pv-db (claim app/db)", "delete the claims")
		if strings.Contains(cond.Message, "pv-free") {
			t.Errorf("message %q names a PV that does not block", cond.Message)
		}

		// One merge patch of the status subresource, pinned to the version
		// seen, that carries nothing but the condition.
		patches := e.statusPatches()
		if len(patches) != 1 || patches[0].PatchType != types.MergePatchType {
			t.Fatalf("status patches = %v, want one merge patch", patches)
		}
		var p struct {
			Metadata map[string]any `json:"metadata"`
			Status   map[string]any `json:"status"`
		}
		if err := json.Unmarshal(patches[0].Patch, &p); err != nil {
			t.Fatal(err)
		}
		if p.Metadata["resourceVersion"] != seen || p.Metadata["uid"] != "uid-"+kind || len(p.Metadata) != 2 {
			t.Errorf("patch metadata = %v, want only the resourceVersion %s and UID it was computed on", p.Metadata, seen)
		}
		if got := slices.Sorted(maps.Keys(p.Status)); !slices.Equal(got, []string{"conditions"}) {
			t.Errorf("patch status fields = %v, want only conditions", got)
		}
		if !hasOwnerFinalizer(e.owner(t, kind)) {
			t.Error("the status write lost the finalizer")
		}
	})
}

// The reason says what kind of PV blocks; the message lists each kind with
// what to do about it.
func TestConditionReasonNamesWhatBlocks(t *testing.T) {
	retained := func(name string) *corev1.PersistentVolume {
		return newPV(name, KindLocalVolumeSet, releasedFrom("app", name, corev1.PersistentVolumeReclaimRetain))
	}
	for _, tc := range []struct {
		name     string
		volumes  []*corev1.PersistentVolume
		reason   string
		mentions []string
	}{
		{"retained", []*corev1.PersistentVolume{retained("pv-kept")}, ConditionReasonRetainedVolumes,
			[]string{"pv-kept (Released, Retain)", "back up the data", "delete these PersistentVolumes"}},
		{"bound and retained", []*corev1.PersistentVolume{retained("pv-kept"), newPV("pv-db", KindLocalVolumeSet, boundTo("app", "db"))},
			ConditionReasonBoundAndRetainedVolumes,
			[]string{"2 PersistentVolumes", "Bound to a claim (1): pv-db (claim app/db)", "kept by their reclaim policy (1): pv-kept"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, setup{
				owners:  []ownerObject{newOwner(KindLocalVolumeSet, protectedOwner, deletingOwner)},
				volumes: tc.volumes,
				nodes:   []*corev1.Node{newNode(testNode)},
			})
			e.mustSync(t, keyOf(KindLocalVolumeSet))
			cond := e.blockedCondition(t, KindLocalVolumeSet)
			if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != tc.reason {
				t.Fatalf("condition = %+v, want True, %s", cond, tc.reason)
			}
			mentions(t, cond.Message, tc.mentions...)
		})
	}
}

// However many PVs block, the message names a few of each kind and counts
// the rest.
func TestConditionMessageIsBounded(t *testing.T) {
	var volumes []*corev1.PersistentVolume
	for i := range 12 {
		name := fmt.Sprintf("pv-%02d", i)
		volumes = append(volumes, newPV(name, KindLocalVolume, boundTo("app", name)))
	}
	e := newEnv(t, setup{
		owners:  []ownerObject{newOwner(KindLocalVolume, protectedOwner, deletingOwner)},
		volumes: volumes,
		nodes:   []*corev1.Node{newNode(testNode)},
	})
	e.mustSync(t, keyOf(KindLocalVolume))
	cond := e.blockedCondition(t, KindLocalVolume)
	if cond == nil {
		t.Fatal("no condition")
	}
	mentions(t, cond.Message, "12 PersistentVolumes", "Bound to a claim (12)", "pv-00 (claim app/pv-00)", "pv-04", "and 7 more")
	for _, name := range []string{"pv-05", "pv-11"} {
		if strings.Contains(cond.Message, name) {
			t.Errorf("message %q names %s beyond the first %d", cond.Message, name, maxNamedVolumes)
		}
	}
}

func TestRepeatedSyncDoesNotRewriteUnchangedCondition(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners: []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
			volumes: []*corev1.PersistentVolume{
				newPV("pv-b", kind, boundTo("app", "b")),
				newPV("pv-a", kind, releasedFrom("app", "a", corev1.PersistentVolumeReclaimRetain)),
			},
			nodes: []*corev1.Node{newNode(testNode)},
		})
		for range 5 {
			e.mustSync(t, keyOf(kind))
			e.clock.Step(time.Minute)
		}
		if p := e.statusPatches(); len(p) != 1 {
			t.Fatalf("status patches = %d, want 1: the condition did not change after the first", len(p))
		}
		if w := e.writes(); len(w) != 1 {
			t.Errorf("writes = %v, want only the status patch", w)
		}
	})
}

// A change of what blocks rewrites the message and reason, but the
// condition was True all along: its lastTransitionTime stays.
func TestChangedBlockageKeepsTransitionTime(t *testing.T) {
	e := newEnv(t, setup{
		owners:  []ownerObject{newOwner(KindLocalVolume, protectedOwner, deletingOwner)},
		volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolume, boundTo("app", "db"), testutil.WithReclaimPolicy(corev1.PersistentVolumeReclaimRetain))},
		nodes:   []*corev1.Node{newNode(testNode)},
	})
	key := keyOf(KindLocalVolume)
	e.mustSync(t, key)
	since := e.blockedCondition(t, KindLocalVolume).LastTransitionTime
	e.clock.Step(time.Hour)
	// The user deletes the claim: the PV is Released and kept.
	e.updatePV(t, "pv", testutil.WithVolumePhase(corev1.VolumeReleased))
	e.mustSync(t, key)
	cond := e.blockedCondition(t, KindLocalVolume)
	if cond.Status != metav1.ConditionTrue || cond.Reason != ConditionReasonRetainedVolumes {
		t.Fatalf("condition = %+v, want True, %s", cond, ConditionReasonRetainedVolumes)
	}
	if !cond.LastTransitionTime.Equal(&since) {
		t.Errorf("lastTransitionTime = %v, want %v: the status did not change", cond.LastTransitionTime, since)
	}
	if p := e.statusPatches(); len(p) != 2 {
		t.Errorf("status patches = %d, want 2", len(p))
	}
}

func TestConditionClearsWhenBlockingVolumeIsGone(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners: []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
			volumes: []*corev1.PersistentVolume{
				newPV("pv-db", kind, boundTo("app", "db")),
				newPV("pv-wiping", kind, testutil.Deleting()),
			},
			nodes: []*corev1.Node{newNode(testNode)},
		})
		key := keyOf(kind)
		e.mustSync(t, key)
		if c := e.blockedCondition(t, kind); c == nil || c.Status != metav1.ConditionTrue {
			t.Fatalf("condition = %+v, want True", c)
		}

		// The claim is deleted; the PV is released to the node agent,
		// which has not finished with the other one either.
		e.clock.Step(time.Hour)
		e.updatePV(t, "pv-db", releasedFrom("app", "db", corev1.PersistentVolumeReclaimDelete))
		e.mustSync(t, key)
		cond := e.blockedCondition(t, kind)
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != ConditionReasonNoBlockingVolumes {
			t.Fatalf("condition = %+v, want False, %s", cond, ConditionReasonNoBlockingVolumes)
		}
		if !cond.LastTransitionTime.Time.Equal(e.clock.Now()) {
			t.Errorf("lastTransitionTime = %v, want the time it cleared, %v", cond.LastTransitionTime, e.clock.Now())
		}
		mentions(t, cond.Message, "No PersistentVolume blocks the deletion")
		if !hasOwnerFinalizer(e.owner(t, kind)) {
			t.Fatal("finalizer removed while PVs are left")
		}
		e.mustSync(t, key)
		if p := e.statusPatches(); len(p) != 2 {
			t.Errorf("status patches = %d, want 2: True, then False once", len(p))
		}

		// The agent is done: the finalizer goes, and the owner with it.
		e.userDeletesPV(t, "pv-db")
		e.agentReleases(t, "pv-db")
		e.agentReleases(t, "pv-wiping")
		e.mustSync(t, key)
		if e.owner(t, kind) != nil {
			t.Fatal("owner kept after its last PV went")
		}
	})
}

// An owner whose deletion was never blocked gets no condition: nothing
// blocking is the normal case and costs no write.
func TestNeverBlockedDeletionGetsNoCondition(t *testing.T) {
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners:  []ownerObject{newOwner(kind, protectedOwner, deletingOwner)},
			volumes: []*corev1.PersistentVolume{newPV("pv", kind, testutil.Deleting())},
			nodes:   []*corev1.Node{newNode(testNode)},
		})
		for range 3 {
			e.mustSync(t, keyOf(kind))
		}
		if p := e.statusPatches(); len(p) != 0 {
			t.Fatalf("status patches = %v, want none", p)
		}
	})
}

// The conditions list is written whole: another writer's condition that
// the controller read is written back as it was.
func TestConditionKeepsOtherConditions(t *testing.T) {
	other := metav1.Condition{
		Type: "Available", Status: metav1.ConditionTrue, Reason: "Provisioned", Message: "set by someone else",
		LastTransitionTime: metav1.NewTime(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)),
	}
	owner := newOwner(KindLocalVolumeSet, protectedOwner, deletingOwner, withConditions(other))
	e := newEnv(t, setup{
		owners:  []ownerObject{owner},
		volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolumeSet, boundTo("app", "db"))},
		nodes:   []*corev1.Node{newNode(testNode)},
	})
	e.mustSync(t, keyOf(KindLocalVolumeSet))
	conds := e.status(t, KindLocalVolumeSet).conditions
	if len(conds) != 2 {
		t.Fatalf("conditions = %+v, want the other one and %s", conds, local.ConditionDeletionBlocked)
	}
	got := meta.FindStatusCondition(conds, other.Type)
	if got == nil || got.Message != other.Message || !got.LastTransitionTime.Equal(&other.LastTransitionTime) {
		t.Errorf("other condition = %+v, want %+v", got, other)
	}
}

// A LocalVolumeSet's totalProvisionedDeviceCount is the number of its PVs,
// written only when it differs; a LocalVolume has no count.
func TestDeviceCountWrittenOnlyWhenItDiffers(t *testing.T) {
	e := newEnv(t, setup{
		owners: []ownerObject{
			newOwner(KindLocalVolumeSet, protectedOwner, withDeviceCount(1)),
			newOwner(KindLocalVolume, protectedOwner),
		},
		volumes: []*corev1.PersistentVolume{
			newPV("set-a", KindLocalVolumeSet), newPV("set-b", KindLocalVolumeSet, boundTo("app", "b")),
			newPV("lv-a", KindLocalVolume),
		},
		nodes: []*corev1.Node{newNode(testNode)},
	})
	for range 3 {
		e.mustSync(t, keyOf(KindLocalVolumeSet))
		e.mustSync(t, keyOf(KindLocalVolume))
	}
	if got := deviceCount(e.status(t, KindLocalVolumeSet)); got != 2 {
		t.Errorf("totalProvisionedDeviceCount = %d, want 2", got)
	}
	if w := e.writes(); !slices.Equal(w, []string{"patch localvolumesets/status " + ownerName}) {
		t.Errorf("writes = %v, want one status patch of the set", w)
	}
	if st := e.status(t, KindLocalVolume); st.deviceCount != nil || len(st.conditions) != 0 {
		t.Errorf("LocalVolume status = %+v, want none", st)
	}
}

// Through the workers and event handlers: a PV the node agent creates, or
// one that goes, gets the set's count written.
func TestRunDeviceCountFollowsVolumes(t *testing.T) {
	e := newEnv(t, setup{
		owners:  []ownerObject{newOwner(KindLocalVolumeSet, withDeviceCount(0))},
		volumes: []*corev1.PersistentVolume{newPV("pv-a", KindLocalVolumeSet)},
		nodes:   []*corev1.Node{newNode(testNode)},
	})
	e.run(t)
	count := func(n int32) func() bool {
		return func() bool {
			o := e.owner(t, KindLocalVolumeSet)
			return hasOwnerFinalizer(o) && deviceCount(o) == n
		}
	}
	e.Eventually(t, "the finalizer and a count of 1", count(1))

	testutil.Create(t, e.Client.CoreV1().PersistentVolumes(), newPV("pv-b", KindLocalVolumeSet))
	e.Eventually(t, "a count of 2", count(2))

	// The PV goes (its finalizer would keep it, being deleted, as one of
	// the set's PVs).
	if err := e.Client.Tracker().Delete(pvGVR, "", "pv-a"); err != nil {
		t.Fatal(err)
	}
	e.Eventually(t, "a count of 1 again", count(1))
	if logs := e.Logs.Errors(); len(logs) != 0 {
		t.Errorf("error logs = %v", logs)
	}
}

// fullOwner is an owner being deleted with everything a user or the
// operator may put on one: other finalizers, annotations and labels, a
// spec with node selector and tolerations, another writer's condition; a
// LocalVolumeSet's device count says 3, more than the PVs it has.
func fullOwner(kind string, other metav1.Condition) ownerObject {
	o := newOwner(kind, protectedOwner, deletingOwner, withConditions(other),
		withNodeSelector(selectorIn(local.NodeLabel, testNode)))
	o.SetFinalizers(append(o.GetFinalizers(), "example.com/backup"))
	o.GetAnnotations()["example.com/owner"] = "team-a"
	o.SetLabels(map[string]string{"app": "storage"})
	o.SetGeneration(3)
	tolerations := []corev1.Toleration{{Key: "storage", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	switch o := o.(type) {
	case *localv1.LocalVolume:
		o.Spec.Tolerations = tolerations
		o.Spec.StorageClassDevices[0].FSType = "xfs"
	case *localv1alpha1.LocalVolumeSet:
		o.Spec.Tolerations = tolerations
		o.Spec.FSType = "xfs"
		o.Spec.MaxDeviceCount = ptr.To[int32](4)
		withDeviceCount(3)(o)
	}
	return o
}

// storedOwner is the owner as the fake API server stores it.
func (e *env) storedOwner(t *testing.T, kind string) ownerObject {
	t.Helper()
	obj, err := e.local.Tracker().Get(e.ctrl.kinds[kind].gvr, testNS, ownerName)
	if err != nil {
		t.Fatal(err)
	}
	return obj.(ownerObject)
}

// withoutStatus is o without its status and version (and the fake's record
// of who wrote which field).
func withoutStatus(o ownerObject) ownerObject {
	c := o.DeepCopyObject().(ownerObject)
	c.SetResourceVersion("")
	c.SetManagedFields(nil)
	switch c := c.(type) {
	case *localv1.LocalVolume:
		c.Status = localv1.LocalVolumeStatus{}
	case *localv1alpha1.LocalVolumeSet:
		c.Status = localv1alpha1.LocalVolumeSetStatus{}
	}
	return c
}

// The status write of an owner that carries everything is one pinned patch
// of the status subresource that holds nothing but what the controller
// owns of the status; the rest of the owner, and the other condition, stay.
func TestAStatusWriteChangesOnlyTheStatus(t *testing.T) {
	other := metav1.Condition{
		Type: "Available", Status: metav1.ConditionTrue, Reason: "Provisioned", Message: "set by the operator",
		LastTransitionTime: metav1.NewTime(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)),
	}
	forEachKind(t, func(t *testing.T, kind string) {
		e := newEnv(t, setup{
			owners:  []ownerObject{fullOwner(kind, other)},
			volumes: []*corev1.PersistentVolume{newPV("pv-db", kind, boundTo("app", "db"))},
			nodes:   []*corev1.Node{newNode(testNode)},
		})
		before := e.storedOwner(t, kind)
		e.mustSync(t, keyOf(kind))
		after := e.storedOwner(t, kind)

		patches := e.statusPatches()
		if len(patches) != 1 || patches[0].PatchType != types.MergePatchType {
			t.Fatalf("status patches = %v, want one merge patch", patches)
		}
		var p map[string]map[string]any
		if err := json.Unmarshal(patches[0].Patch, &p); err != nil {
			t.Fatal(err)
		}
		wantStatus := []string{"conditions"}
		if kind == KindLocalVolumeSet {
			wantStatus = []string{"conditions", "totalProvisionedDeviceCount"}
		}
		if got := slices.Sorted(maps.Keys(p)); !slices.Equal(got, []string{"metadata", "status"}) {
			t.Errorf("patch fields = %v, want metadata and status alone", got)
		}
		if p["metadata"]["resourceVersion"] != before.GetResourceVersion() || p["metadata"]["uid"] != string(before.GetUID()) || len(p["metadata"]) != 2 {
			t.Errorf("patch metadata = %v, want only the resourceVersion %s and UID it was computed on", p["metadata"], before.GetResourceVersion())
		}
		if got := slices.Sorted(maps.Keys(p["status"])); !slices.Equal(got, wantStatus) {
			t.Errorf("patch status fields = %v, want %v", got, wantStatus)
		}

		if b, a := withoutStatus(before), withoutStatus(after); !equality.Semantic.DeepEqual(b, a) {
			t.Errorf("the status write changed more than the status:\n%s", diff.Diff(b, a))
		}
		o := e.status(t, kind)
		if got := meta.FindStatusCondition(o.conditions, other.Type); got == nil || !equality.Semantic.DeepEqual(*got, other) {
			t.Errorf("other condition = %+v, want %+v", got, other)
		}
		if meta.FindStatusCondition(o.conditions, local.ConditionDeletionBlocked) == nil || len(o.conditions) != 2 {
			t.Errorf("conditions = %+v, want the other one and %s", o.conditions, local.ConditionDeletionBlocked)
		}
		if kind == KindLocalVolumeSet && deviceCount(o) != 1 {
			t.Errorf("totalProvisionedDeviceCount = %d, want 1", deviceCount(o))
		}
	})
}
