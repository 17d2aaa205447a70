//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// userHold is another controller's finalizer, which the sidecar must keep.
const userHold = "backup.example.com/hold"

// userFields is what a user's tools put on an object, as `kubectl apply
// --server-side` plus kubectl's client-side last-applied annotation would:
// labels, annotations, another controller's finalizer, an owner, and the
// managed fields of the field manager "kubectl".
type userFields struct {
	labels      map[string]string
	annotations map[string]string
	finalizers  []string
	owners      []metav1.OwnerReference
}

func newUserFields(kind, name string) userFields {
	return userFields{
		labels: map[string]string{"app": "db", "tier": "gold"},
		annotations: map[string]string{
			corev1.LastAppliedConfigAnnotation: fmt.Sprintf(`{"kind":%q,"metadata":{"name":%q}}`, kind, name),
			"backup.example.com/policy":        "daily",
		},
		finalizers: []string{userHold},
		owners: []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "0b0b0b0b-0000-4000-8000-000000000001",
		}},
	}
}

// applyPatch is the server-side apply body that sets the fields on an
// object of the kind.
func (u userFields) applyPatch(apiVersion, kind, namespace, name string) []byte {
	data, err := json.Marshal(map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{
			"name": name, "namespace": namespace,
			"labels": u.labels, "annotations": u.annotations,
			"finalizers": u.finalizers, "ownerReferences": u.owners,
		},
	})
	if err != nil {
		panic(err)
	}
	return data
}

// missingFrom lists what of the fields obj lost.
func (u userFields) missingFrom(obj metav1.Object) []string {
	var missing []string
	for k, v := range u.labels {
		if obj.GetLabels()[k] != v {
			missing = append(missing, "label "+k)
		}
	}
	for k, v := range u.annotations {
		if obj.GetAnnotations()[k] != v {
			missing = append(missing, "annotation "+k)
		}
	}
	for _, f := range u.finalizers {
		if !slices.Contains(obj.GetFinalizers(), f) {
			missing = append(missing, "finalizer "+f)
		}
	}
	if !equality.Semantic.DeepEqual(obj.GetOwnerReferences(), u.owners) {
		missing = append(missing, fmt.Sprintf("ownerReferences (got %v)", obj.GetOwnerReferences()))
	}
	applied := slices.ContainsFunc(obj.GetManagedFields(), func(e metav1.ManagedFieldsEntry) bool {
		return e.Manager == "kubectl" && e.Operation == metav1.ManagedFieldsOperationApply
	})
	if !applied {
		missing = append(missing, "kubectl's server-side apply managedFields entry")
	}
	return missing
}

// applyClaim creates a claim of the class and size with `kubectl apply
// --server-side`, carrying the user's fields from its first version on.
//
// kube-apiserver writes the applied configuration into the last-applied
// annotation itself (so that a later client-side apply merges against it):
// the fields returned hold the value it wrote.
func applyClaim(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name, class, size string, u userFields) userFields {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(u.applyPatch("v1", "PersistentVolumeClaim", namespace, name), &obj); err != nil {
		t.Fatal(err)
	}
	obj["spec"] = map[string]any{
		"accessModes":      []string{"ReadWriteOnce"},
		"storageClassName": class,
		"resources":        map[string]any{"requests": map[string]any{"storage": size}},
	}
	patch, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	applied, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, name, types.ApplyPatchType, patch,
		metav1.PatchOptions{FieldManager: "kubectl", Force: ptrTrue()})
	if err != nil {
		t.Fatalf("apply claim %s: %v", name, err)
	}
	return u.as(applied)
}

// as takes the last-applied annotation's value from the applied object.
func (u userFields) as(applied metav1.Object) userFields {
	u.annotations = maps.Clone(u.annotations)
	u.annotations[corev1.LastAppliedConfigAnnotation] = applied.GetAnnotations()[corev1.LastAppliedConfigAnnotation]
	return u
}

func ptrTrue() *bool { b := true; return &b }

func waitForClaimFinalizers(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string, ok func([]string) bool) {
	t.Helper()
	waitFor(ctx, t, s, "the finalizers of claim "+name, func(ctx context.Context) (bool, error) {
		pvc, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return ok(pvc.Finalizers), fmt.Errorf("finalizers %v", pvc.Finalizers)
	})
}

func requireClaimKeeps(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string, u userFields, when string) *corev1.PersistentVolumeClaim {
	t.Helper()
	pvc, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if missing := u.missingFrom(pvc); len(missing) > 0 {
		t.Errorf("claim %s lost %v %s", name, missing, when)
	}
	return pvc
}

// releaseUserHold takes the user's own finalizer away again, as its
// controller would, so that the claim can go.
func releaseUserHold(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"$deleteFromPrimitiveList/finalizers":[%q]}}`, userHold)
	_, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("release %s on claim %s: %v", userHold, name, err)
	}
}

// Every claim the sidecar writes keeps what a user's tools put on it:
// through provisioning (the provisioning-protection finalizer and its
// release), as a clone's source (the cloning-protection finalizer and its
// release), when sent back to the scheduler, and up to its deletion; a PV's
// spec.csi never changes after its creation.
func TestClaimWritesKeepTheUsersFields(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		// 3Gi: the first claim and its clone fit, a 4Gi claim does not.
		Driver: framework.DriverOptions{Topology: true, NodeID: "node-1", Capacity: 3 << 30},
	})
	createTopologyNode(ctx, t, s, "node-1")
	createStorageClass(ctx, t, s, "mock")
	createStorageClass(ctx, t, s, "mock-wffc", waitForFirstConsumer)

	data := newUserFields("PersistentVolumeClaim", "data")
	data = applyClaim(ctx, t, s, "default", "data", "mock", "1Gi", data)
	_, pv := waitForClaimBound(ctx, t, s, "default", "data")
	waitForClaimFinalizers(ctx, t, s, "default", "data", func(f []string) bool { return !slices.Contains(f, provisioningProtection) })
	requireClaimKeeps(ctx, t, s, "default", "data", data, "through provisioning")
	csiAtCreation := pv.Spec.CSI.DeepCopy()

	createClaim(ctx, t, s, "default", "copy", "mock", clonedFrom("data"))
	waitForClaimBound(ctx, t, s, "default", "copy")
	waitForClaimFinalizers(ctx, t, s, "default", "data", func(f []string) bool { return !slices.Contains(f, cloningProtection) })
	requireClaimKeeps(ctx, t, s, "default", "data", data, "as a clone's source")

	// ResourceExhausted on the selected node: back to the scheduler.
	big := newUserFields("PersistentVolumeClaim", "big")
	big = applyClaim(ctx, t, s, "default", "big", "mock-wffc", "4Gi", big)
	selectNode(ctx, t, s, "default", "big", "node-1")
	waitFor(ctx, t, s, "claim big to be sent back to the scheduler", func(ctx context.Context) (bool, error) {
		pvc, err := s.Client().CoreV1().PersistentVolumeClaims("default").Get(ctx, "big", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		_, selected := pvc.Annotations[annSelectedNode]
		return !selected, nil
	})
	requireClaimKeeps(ctx, t, s, "default", "big", big, "when sent back to the scheduler")

	deleteClaim(ctx, t, s, "default", "copy")
	deleteClaim(ctx, t, s, "default", "data")
	requireClaimKeeps(ctx, t, s, "default", "data", data, "while being deleted")
	releaseUserHold(ctx, t, s, "default", "data")
	// Every copy of the PV seen until it is gone has its first spec.csi.
	waitFor(ctx, t, s, "PV "+pv.Name+" to be deleted", func(ctx context.Context) (bool, error) {
		got, err := s.Client().CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if !equality.Semantic.DeepEqual(got.Spec.CSI, csiAtCreation) {
			t.Errorf("PV %s spec.csi changed:\nat creation %+v\nnow %+v", pv.Name, csiAtCreation, got.Spec.CSI)
		}
		return false, fmt.Errorf("phase %s", got.Status.Phase)
	})
	releaseUserHold(ctx, t, s, "default", "big")
	deleteClaim(ctx, t, s, "default", "big")
	waitForDriverVolumes(ctx, t, s, 0)
}

// A restore's source VolumeSnapshot keeps what a user's tools put on it
// through the source-protection finalizer and its release.
func TestSnapshotWritesKeepTheUsersFields(t *testing.T) {
	ctx, s, _, _ := startRestoreStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{CreateDelay: restoreCreateDelay},
	})
	fields := newUserFields("VolumeSnapshot", "golden-snap")
	fields.finalizers = nil // snapshot-controller's own finalizers must not be held up
	applied, err := s.SnapshotClient().SnapshotV1().VolumeSnapshots("default").Patch(ctx, "golden-snap", types.ApplyPatchType,
		fields.applyPatch("snapshot.storage.k8s.io/v1", "VolumeSnapshot", "default", "golden-snap"),
		metav1.PatchOptions{FieldManager: "kubectl", Force: ptrTrue()})
	if err != nil {
		t.Fatalf("apply user fields to the snapshot: %v", err)
	}
	fields = fields.as(applied)

	createClaim(ctx, t, s, "default", "restored", "mock", restoredFrom("golden-snap"))
	waitForSnapshotFinalizer(ctx, t, s, "golden-snap", true)
	snap, err := s.SnapshotClient().SnapshotV1().VolumeSnapshots("default").Get(ctx, "golden-snap", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if missing := fields.missingFrom(snap); len(missing) > 0 {
		t.Errorf("snapshot lost %v when protected", missing)
	}
	waitForClaimBound(ctx, t, s, "default", "restored")
	waitForSnapshotFinalizer(ctx, t, s, "golden-snap", false)
	if snap, err = s.SnapshotClient().SnapshotV1().VolumeSnapshots("default").Get(ctx, "golden-snap", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if missing := fields.missingFrom(snap); len(missing) > 0 {
		t.Errorf("snapshot lost %v when released (labels %v, annotations %v)", missing, snap.Labels, slices.Sorted(maps.Keys(snap.Annotations)))
	}
}
