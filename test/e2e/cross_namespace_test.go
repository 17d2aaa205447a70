//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const crossNamespaceRBAC = "deploy/kubernetes/rbac-cross-namespace.yaml"

// restoredAcross makes the claim a restore of a snapshot of another
// namespace.
func restoredAcross(namespace, snapshot string) func(*corev1.PersistentVolumeClaim) {
	return func(pvc *corev1.PersistentVolumeClaim) {
		pvc.Spec.DataSourceRef = &corev1.TypedObjectReference{
			APIGroup: ptr.To("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: snapshot, Namespace: ptr.To(namespace),
		}
	}
}

// With CrossNamespaceVolumeDataSource on (in kube-apiserver and the
// sidecar), a claim restores a snapshot of another namespace only once a
// ReferenceGrant there allows it: refused with an event before, restored
// after, with the snapshot's data, under the shipped RBAC plus
// rbac-cross-namespace.yaml.
func TestCrossNamespaceRestoreNeedsAReferenceGrant(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		Cluster:   framework.ClusterOptions{APIServerArgs: []string{"--feature-gates=CrossNamespaceVolumeDataSource=true"}},
		Snapshots: framework.SnapshotOptions{Enabled: true},
		Sidecar:   framework.SidecarOptions{Deferred: true, ExtraRBACManifests: []string{crossNamespaceRBAC}},
	})
	// The sidecar looks for ReferenceGrants when it starts.
	if err := s.Cluster().InstallReferenceGrantCRD(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartSidecar(ctx, framework.SidecarOptions{
		ExtraRBACManifests: []string{crossNamespaceRBAC},
		ExtraArgs:          []string{"--feature-gates=CrossNamespaceVolumeDataSource=true", "--retry-interval-max=2s"},
	}); err != nil {
		t.Fatal(err)
	}
	createStorageClass(ctx, t, s, "mock")
	createNamespace(ctx, t, s, "golden")
	createNamespace(ctx, t, s, "apps")
	createClaim(ctx, t, s, "golden", "golden", "mock")
	waitForClaimBound(ctx, t, s, "golden", "golden")
	if err := s.CreateSnapshot(ctx, "golden", "golden-snap", "golden"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitSnapshotReady(ctx, "golden", "golden-snap"); err != nil {
		t.Fatal(err)
	}
	handle, err := s.SnapshotHandle(ctx, "golden", "golden-snap")
	if err != nil {
		t.Fatal(err)
	}

	createClaim(ctx, t, s, "apps", "restored", "mock", restoredAcross("golden", "golden-snap"))
	ev := waitForClaimEvent(ctx, t, s, "apps", "restored", corev1.EventTypeWarning, "ProvisioningFailed")
	// Upstream v6.3.0's text (pkg/controller/util.go, IsGranted).
	if !strings.Contains(ev.Message, "accessing golden/golden-snap of VolumeSnapshot dataSource from apps/restored isn't allowed") {
		t.Fatalf("event %q does not say that no ReferenceGrant allows the restore", ev.Message)
	}

	grantRestores(ctx, t, s, "golden", "apps")
	_, pv := waitForClaimBound(ctx, t, s, "apps", "restored")
	vol, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle)
	if !ok || vol.SourceSnapshotID != handle {
		t.Fatalf("restored volume %+v, want one made from snapshot %s", vol, handle)
	}
}

var referenceGrants = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1beta1", Resource: "referencegrants"}

// grantRestores lets claims of namespace from restore every VolumeSnapshot
// of namespace in.
func grantRestores(ctx context.Context, t *testing.T, s *framework.Stack, in, from string) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(s.Cluster().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	grant := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1beta1",
		"kind":       "ReferenceGrant",
		"metadata":   map[string]any{"name": "restores-from-" + from, "namespace": in},
		"spec": map[string]any{
			"from": []any{map[string]any{"group": "", "kind": "PersistentVolumeClaim", "namespace": from}},
			"to":   []any{map[string]any{"group": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot"}},
		},
	}}
	if _, err := dyn.Resource(referenceGrants).Namespace(in).Create(ctx, grant, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create ReferenceGrant: %v", err)
	}
}
