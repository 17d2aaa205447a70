package main

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
)

func TestStripManagedFields(t *testing.T) {
	claim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name:          "data",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
	}}
	out, err := stripUnreadMetadata(claim)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*v1.PersistentVolumeClaim); got.ManagedFields != nil || got.Name != "data" {
		t.Errorf("got %+v", got.ObjectMeta)
	}

	// Tombstones and other non-objects pass through untouched.
	tombstone := cache.DeletedFinalStateUnknown{Key: "ns/data", Obj: claim}
	if out, err := stripUnreadMetadata(tombstone); err != nil || out != tombstone {
		t.Errorf("tombstone changed: %v, %v", out, err)
	}
}

func TestLastAppliedConfigurationIsCachedOnlyForKindsWrittenByUpdate(t *testing.T) {
	annotations := func() map[string]string {
		return map[string]string{
			v1.LastAppliedConfigAnnotation:             `{"apiVersion":"v1"}`,
			"volume.kubernetes.io/storage-provisioner": "csi.example.com",
		}
	}
	claim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Annotations: annotations()}}
	pv := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1", Annotations: annotations()}}
	for _, tc := range []struct {
		obj      metav1.Object
		trim     func(any) (any, error)
		wantKept bool
	}{
		// Claims are written with an update, which replaces the whole
		// annotation map: a copy without it would erase kubectl's.
		{obj: claim, trim: trimForCache, wantKept: true},
		// VolumeSnapshots and CSIStorageCapacities too, through this trim.
		{obj: claim.DeepCopy(), trim: dropManagedFields, wantKept: true},
		// PVs are only patched.
		{obj: pv, trim: trimForCache, wantKept: false},
	} {
		out, err := tc.trim(tc.obj)
		if err != nil {
			t.Fatal(err)
		}
		got := out.(metav1.Object).GetAnnotations()
		if _, kept := got[v1.LastAppliedConfigAnnotation]; kept != tc.wantKept || got["volume.kubernetes.io/storage-provisioner"] != "csi.example.com" {
			t.Errorf("%T: annotations %v, want the last-applied configuration kept: %v, and the rest kept", tc.obj, got, tc.wantKept)
		}
	}
}

func TestCachedClaimsKeepOnlyTheirPhase(t *testing.T) {
	claim := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec:       v1.PersistentVolumeClaimSpec{VolumeName: "pv-1"},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:       v1.ClaimBound,
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Capacity:    v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			Conditions:  []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimResizing}},
		},
	}
	out, err := trimForCache(claim)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*v1.PersistentVolumeClaim)
	if want := (v1.PersistentVolumeClaimStatus{Phase: v1.ClaimBound}); !equality.Semantic.DeepEqual(got.Status, want) {
		t.Errorf("status %+v, want only the phase", got.Status)
	}
	if got.Spec.VolumeName != "pv-1" {
		t.Errorf("the spec must stay whole, got %+v", got.Spec)
	}
}

// The claim conditions controller's own condition stays in the cache, so
// that it writes only what differs; every other condition goes.
func TestCachedClaimsKeepTheClaimConditionsControllersCondition(t *testing.T) {
	own := v1.PersistentVolumeClaimCondition{Type: claimconditions.ConditionType, Status: v1.ConditionTrue, Reason: claimconditions.ReasonProvisioning, Message: "CreateVolume is running"}
	claim := &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:       v1.ClaimPending,
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Conditions:  []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimResizing}, own},
		},
	}
	out, err := trimForCache(claim)
	if err != nil {
		t.Fatal(err)
	}
	want := v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending, Conditions: []v1.PersistentVolumeClaimCondition{own}}
	if got := out.(*v1.PersistentVolumeClaim).Status; !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("status %+v, want %+v", got, want)
	}
}

func TestCachedVolumesKeepNoVolumeContextAndOnlyTheirPhase(t *testing.T) {
	now := metav1.Now()
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-1", Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": "csi.example.com"}},
		Spec: v1.PersistentVolumeSpec{
			ClaimRef: &v1.ObjectReference{Namespace: "ns", Name: "data", UID: "uid-1"},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: "csi.example.com", VolumeHandle: "vol-1",
				VolumeAttributes: map[string]string{"tier": "standard"},
			}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound, LastPhaseTransitionTime: &now, Message: "bound"},
	}
	out, err := trimForCache(pv)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*v1.PersistentVolume)
	if got.Spec.CSI.VolumeAttributes != nil || got.Status != (v1.PersistentVolumeStatus{Phase: v1.VolumeBound}) {
		t.Errorf("volume context %v, status %+v: want neither but the phase", got.Spec.CSI.VolumeAttributes, got.Status)
	}
	if got.Spec.CSI.VolumeHandle != "vol-1" || got.Spec.ClaimRef.UID != "uid-1" || got.Annotations["pv.kubernetes.io/provisioned-by"] == "" {
		t.Errorf("what deletion and protection read must stay: %+v", got)
	}
}
