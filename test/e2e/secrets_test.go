//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// A class whose provisioner and node-publish secrets are templates: the
// provisioner secret (named after the claim) goes to CreateVolume, the PV
// carries the node-publish secret (named by a claim annotation) and records
// the provisioner secret for deletion, and DeleteVolume gets that secret
// after the claim is gone.
func TestSecretTemplatesReachTheDriverAndThePV(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{})
	const ns = "tenant-a"
	createNamespace(ctx, t, s, ns)
	createSecret(ctx, t, s, ns, "data-provisioner", "username", "password")
	createSecret(ctx, t, s, ns, "data-publish", "token")
	createStorageClass(ctx, t, s, "mock-secrets", withParameters(map[string]string{
		provisionerSecretNameKey: "${pvc.name}-provisioner",
		provisionerSecretNSKey:   "${pvc.namespace}",
		nodePublishSecretNameKey: "${pvc.annotations['example.com/publish-secret']}",
		nodePublishSecretNSKey:   "${pvc.namespace}",
		"tier":                   "gold",
	}))
	createClaim(ctx, t, s, ns, "data", "mock-secrets", withAnnotation("example.com/publish-secret", "data-publish"))

	_, pv := waitForClaimBound(ctx, t, s, ns, "data")
	vol, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle)
	if !ok {
		t.Fatalf("driver has no volume %s", pv.Spec.CSI.VolumeHandle)
	}
	// Only the provisioner secret belongs to CreateVolume; the secret
	// parameters themselves must not reach the driver.
	if want := []string{"password", "username"}; !slices.Equal(vol.SecretKeys, want) {
		t.Errorf("CreateVolume received secret keys %v, want %v", vol.SecretKeys, want)
	}
	if want := map[string]string{"tier": "gold"}; !maps.Equal(vol.Parameters, want) {
		t.Errorf("CreateVolume received parameters %v, want %v", vol.Parameters, want)
	}

	ref := pv.Spec.CSI.NodePublishSecretRef
	if ref == nil || ref.Name != "data-publish" || ref.Namespace != ns {
		t.Errorf("PV node-publish secret ref %+v, want %s/data-publish", ref, ns)
	}
	if pv.Spec.CSI.NodeStageSecretRef != nil || pv.Spec.CSI.ControllerPublishSecretRef != nil {
		t.Errorf("PV carries secret refs the class does not set: stage %+v, controller publish %+v",
			pv.Spec.CSI.NodeStageSecretRef, pv.Spec.CSI.ControllerPublishSecretRef)
	}
	if name, nsAnn := pv.Annotations[annDeletionSecretName], pv.Annotations[annDeletionSecretNS]; name != "data-provisioner" || nsAnn != ns {
		t.Errorf("PV deletion secret annotations %q/%q, want %s/data-provisioner", nsAnn, name, ns)
	}

	deleteClaim(ctx, t, s, ns, "data")
	waitForPVGone(ctx, t, s, pv.Name)
	st, err := s.DriverState()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(st.Deletions, func(d mockdriver.Deletion) bool { return d.VolumeID == vol.ID })
	if i < 0 {
		t.Fatalf("the driver recorded no DeleteVolume of %s: %+v", vol.ID, st.Deletions)
	}
	if want := []string{"password", "username"}; !slices.Equal(st.Deletions[i].SecretKeys, want) {
		t.Errorf("DeleteVolume received secret keys %v, want %v", st.Deletions[i].SecretKeys, want)
	}
}

// As upstream, a volume whose deletion secret was deleted is still deleted:
// DeleteVolume goes without secrets, and the PV gets a Warning event.
func TestVolumeIsDeletedAfterItsDeletionSecretIsGone(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{})
	const ns = "tenant-b"
	createNamespace(ctx, t, s, ns)
	createSecret(ctx, t, s, ns, "data-provisioner", "username", "password")
	createStorageClass(ctx, t, s, "mock-secrets", withParameters(map[string]string{
		provisionerSecretNameKey: "${pvc.name}-provisioner",
		provisionerSecretNSKey:   "${pvc.namespace}",
	}))
	createClaim(ctx, t, s, ns, "data", "mock-secrets")
	_, pv := waitForClaimBound(ctx, t, s, ns, "data")

	if err := s.Client().CoreV1().Secrets(ns).Delete(ctx, "data-provisioner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deleteClaim(ctx, t, s, ns, "data")
	waitForPVGone(ctx, t, s, pv.Name)
	st, err := s.DriverState()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(st.Deletions, func(d mockdriver.Deletion) bool { return d.VolumeID == pv.Spec.CSI.VolumeHandle })
	if i < 0 {
		t.Fatalf("the driver recorded no DeleteVolume of %s: %+v", pv.Spec.CSI.VolumeHandle, st.Deletions)
	}
	if keys := st.Deletions[i].SecretKeys; len(keys) != 0 {
		t.Errorf("DeleteVolume received secret keys %v, want none", keys)
	}

	// Events about a cluster-scoped PV are recorded in namespace default.
	sel := fields.Set{"involvedObject.kind": "PersistentVolume", "involvedObject.name": pv.Name, "reason": "DeletionSecretMissing"}.AsSelector().String()
	waitFor(ctx, t, s, "a DeletionSecretMissing event on the PV", func(ctx context.Context) (bool, error) {
		events, err := s.Client().CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			return false, err
		}
		for _, ev := range events.Items {
			if ev.Type == corev1.EventTypeWarning && strings.Contains(ev.Message, ns+"/data-provisioner") {
				return true, nil
			}
		}
		return false, fmt.Errorf("%d matching events", len(events.Items))
	})
}
