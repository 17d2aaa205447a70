package main

import (
	"context"
	"testing"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	snapfake "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned/fake"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// userMetadata is what a user's tools put on an object: kubectl's
// last-applied configuration, labels, other controllers' finalizers and
// annotations, an owner, and server-side apply's managed fields.
func userMetadata(name string) metav1.ObjectMeta {
	yes := true
	return metav1.ObjectMeta{
		Name: name, Namespace: "team",
		Labels: map[string]string{"app": "db", "tier": "gold"},
		Annotations: map[string]string{
			v1.LastAppliedConfigAnnotation: `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"` + name + `"}}`,
			"backup.example.com/policy":    "daily",
		},
		Finalizers:      []string{"kubernetes.io/pvc-protection", "backup.example.com/hold"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "sts-uid", Controller: &yes}},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1"}},
	}
}

// withoutManagedFields: an update that carries none leaves the object's own
// in the API server (the e2e suite checks that on a real one); the fake
// stores what it gets.
func withoutManagedFields(m metav1.ObjectMeta) metav1.ObjectMeta {
	m.ManagedFields = nil
	m.ResourceVersion = ""
	return m
}

// A claim's finalizer written from the claim cache's copy keeps every field
// a user's tools put on the claim.
func TestClaimFinalizerWrittenFromTheCacheKeepsTheUsersFields(t *testing.T) {
	ctx := context.Background()
	claim := &v1.PersistentVolumeClaim{
		ObjectMeta: userMetadata("data"),
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:   v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
		},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
	}
	client := testutil.NewClientset(claim)
	stored, err := client.CoreV1().PersistentVolumeClaims("team").Get(ctx, "data", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cached, err := trimForCache(stored.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}

	const protection = "provisioner.storage.kubernetes.io/provisioning-protection"
	for _, write := range []func(metav1.Object) (bool, error){
		func(obj metav1.Object) (bool, error) {
			return finalizer.Add(ctx, finalizer.PersistentVolumeClaims(client), obj, protection)
		},
		func(obj metav1.Object) (bool, error) {
			return finalizer.Remove(ctx, finalizer.PersistentVolumeClaims(client), obj, protection)
		},
	} {
		if wrote, err := write(cached.(metav1.Object)); err != nil || !wrote {
			t.Fatalf("write: %v, %v", wrote, err)
		}
		after, err := client.CoreV1().PersistentVolumeClaims("team").Get(ctx, "data", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := withoutManagedFields(userMetadata("data"))
		if finalizer.Has(after, protection) {
			want.Finalizers = append(want.Finalizers, protection)
		}
		got := withoutManagedFields(after.ObjectMeta)
		got.UID, got.CreationTimestamp = "", metav1.Time{}
		if !equality.Semantic.DeepEqual(got, want) {
			t.Errorf("metadata after the write differs from the user's:\n%s", diff.Diff(want, got))
		}
		if !equality.Semantic.DeepEqual(after.Spec, claim.Spec) {
			t.Errorf("spec changed:\n%s", diff.Diff(claim.Spec, after.Spec))
		}
		if cached, err = trimForCache(after.DeepCopy()); err != nil {
			t.Fatal(err)
		}
	}
}

// The restore source's finalizer written from the snapshot cache's copy
// keeps every field a user's tools put on the VolumeSnapshot.
func TestSnapshotFinalizerWrittenFromTheCacheKeepsTheUsersFields(t *testing.T) {
	ctx := context.Background()
	class, content := "snapclass", "content-1"
	source := "data"
	snapshot := &snapv1.VolumeSnapshot{
		ObjectMeta: userMetadata("snap"),
		Spec: snapv1.VolumeSnapshotSpec{
			Source:                  snapv1.VolumeSnapshotSource{PersistentVolumeClaimName: &source},
			VolumeSnapshotClassName: &class,
		},
		Status: &snapv1.VolumeSnapshotStatus{BoundVolumeSnapshotContentName: &content},
	}
	client := snapfake.NewSimpleClientset()
	testutil.ServerSemantics(&client.Fake, client.Tracker(), testutil.APIServerOptions{})
	if _, err := client.SnapshotV1().VolumeSnapshots("team").Create(ctx, snapshot, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	stored, err := client.SnapshotV1().VolumeSnapshots("team").Get(ctx, "snap", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cached, err := dropManagedFields(stored.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	const sourceProtection = "snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection"
	if _, err := finalizer.Add(ctx, finalizer.VolumeSnapshots(client), cached.(metav1.Object), sourceProtection); err != nil {
		t.Fatal(err)
	}
	after, err := client.SnapshotV1().VolumeSnapshots("team").Get(ctx, "snap", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := withoutManagedFields(userMetadata("snap"))
	want.Finalizers = append(want.Finalizers, sourceProtection)
	got := withoutManagedFields(after.ObjectMeta)
	got.UID, got.CreationTimestamp = "", metav1.Time{}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("metadata after the write differs from the user's:\n%s", diff.Diff(want, got))
	}
	if !equality.Semantic.DeepEqual(after.Spec, snapshot.Spec) || !equality.Semantic.DeepEqual(after.Status, snapshot.Status) {
		t.Errorf("spec or status changed: %+v", after)
	}
}

// Two claims that carry the same metadata share it in the cache: a write
// from one's cached copy keeps everything on it and changes nothing of the
// other's cached copy.
func TestClaimWrittenFromASharedCachedCopyLeavesTheOtherAsItWas(t *testing.T) {
	ctx := context.Background()
	alike := func(name string) *v1.PersistentVolumeClaim {
		m := userMetadata(name)
		// The same short last-applied configuration on both, so that
		// even their annotation maps are shared.
		m.Annotations[v1.LastAppliedConfigAnnotation] = `{"apiVersion":"v1","kind":"PersistentVolumeClaim"}`
		return &v1.PersistentVolumeClaim{ObjectMeta: m, Spec: v1.PersistentVolumeClaimSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:   v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
		}}
	}
	client := testutil.NewClientset(alike("a"), alike("b"))
	cache := map[string]*v1.PersistentVolumeClaim{}
	for _, name := range []string{"a", "b"} {
		stored, err := client.CoreV1().PersistentVolumeClaims("team").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cached, err := trimForCache(decoded(t, stored))
		if err != nil {
			t.Fatal(err)
		}
		cache[name] = cached.(*v1.PersistentVolumeClaim)
	}
	if !same(cache["a"].Annotations, cache["b"].Annotations) || !same(cache["a"].Finalizers, cache["b"].Finalizers) {
		t.Fatal("the two cached claims share nothing: this test needs them to")
	}
	before := cache["b"].DeepCopy()

	const protection = "provisioner.storage.kubernetes.io/provisioning-protection"
	if wrote, err := finalizer.Add(ctx, finalizer.PersistentVolumeClaims(client), cache["a"], protection); err != nil || !wrote {
		t.Fatalf("write: %v, %v", wrote, err)
	}
	after, err := client.CoreV1().PersistentVolumeClaims("team").Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := withoutManagedFields(alike("a").ObjectMeta)
	want.Finalizers = append(want.Finalizers, protection)
	got := withoutManagedFields(after.ObjectMeta)
	got.UID, got.CreationTimestamp = "", metav1.Time{}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("metadata after the write differs from the user's:\n%s", diff.Diff(want, got))
	}
	if !equality.Semantic.DeepEqual(cache["b"], before) || finalizer.Has(cache["a"], protection) {
		t.Errorf("the write changed the cache:\n%s", diff.Diff(before, cache["b"]))
	}
}

// A PV's finalizer is written from the cache's trimmed copy (no volume
// context, no last-applied configuration, no status but the phase) with a
// merge patch of the finalizers alone: everything else stays as it is.
func TestVolumeFinalizerWrittenFromTheCacheKeepsEverything(t *testing.T) {
	ctx := context.Background()
	// Whole seconds, as the API keeps them.
	now := metav1.Unix(1767225600, 0)
	m := userMetadata("pv-1")
	m.Namespace = ""
	pv := &v1.PersistentVolume{
		ObjectMeta: m,
		Spec: v1.PersistentVolumeSpec{
			Capacity:    v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			ClaimRef:    &v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "team", Name: "data", UID: "uid-1"},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: "csi.example.com", VolumeHandle: "vol-1", FSType: "ext4",
				VolumeAttributes: map[string]string{"tier": "standard", "pool": "a"},
			}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound, LastPhaseTransitionTime: &now},
	}
	client := testutil.NewClientset(pv)
	stored, err := client.CoreV1().PersistentVolumes().Get(ctx, "pv-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cached, err := trimForCache(decoded(t, stored))
	if err != nil {
		t.Fatal(err)
	}
	const protection = "kubernetes.io/pv-protection"
	if wrote, err := finalizer.Add(ctx, finalizer.PersistentVolumes(client), cached.(metav1.Object), protection); err != nil || !wrote {
		t.Fatalf("write: %v, %v", wrote, err)
	}
	after, err := client.CoreV1().PersistentVolumes().Get(ctx, "pv-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := withoutManagedFields(m)
	want.Finalizers = append(want.Finalizers, protection)
	got := withoutManagedFields(after.ObjectMeta)
	got.UID, got.CreationTimestamp = "", metav1.Time{}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("metadata after the write differs:\n%s", diff.Diff(want, got))
	}
	if !equality.Semantic.DeepEqual(after.Spec, pv.Spec) {
		t.Errorf("spec changed:\n%s", diff.Diff(pv.Spec, after.Spec))
	}
	if !equality.Semantic.DeepEqual(after.Status, pv.Status) {
		t.Errorf("status changed:\n%s", diff.Diff(pv.Status, after.Status))
	}
}
