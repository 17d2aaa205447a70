package controller

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

const (
	// CloningProtectionFinalizer keeps a source claim from being deleted
	// while a clone of it may still be created from its volume.
	CloningProtectionFinalizer = "provisioner.storage.kubernetes.io/cloning-protection"
	// ProvisioningProtectionFinalizer keeps a claim from disappearing while a
	// CreateVolume for it may be running, so its volume is never forgotten.
	ProvisioningProtectionFinalizer = "provisioner.storage.kubernetes.io/provisioning-protection"
)

func hasFinalizer(obj metav1.Object, finalizer string) bool {
	for _, f := range obj.GetFinalizers() {
		if f == finalizer {
			return true
		}
	}
	return false
}

// finalizerPatch is a strategic merge patch of metadata.finalizers, a list
// with merge semantics: it adds and removes exactly the named entries and
// leaves every other writer's finalizers alone, so it needs no
// resourceVersion precondition and never fails on an unrelated change of
// the claim. The API server refuses to add a finalizer to an object that is
// already being deleted, which is what adding one before CreateVolume needs.
func finalizerPatch(add, remove []string) ([]byte, error) {
	meta := map[string]interface{}{}
	if len(add) > 0 {
		meta["finalizers"] = add
	}
	if len(remove) > 0 {
		meta["$deleteFromPrimitiveList/finalizers"] = remove
	}
	return json.Marshal(map[string]interface{}{"metadata": meta})
}

// patchClaimFinalizers adds and removes finalizers of a claim in one request.
func patchClaimFinalizers(ctx context.Context, client kubernetes.Interface, namespace, name string, add, remove []string) error {
	patch, err := finalizerPatch(add, remove)
	if err != nil {
		return err
	}
	_, err = client.CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("update finalizers of claim %s/%s: the RBAC rule for persistentvolumeclaims must allow patch: %w", namespace, name, err)
	}
	if err != nil {
		return fmt.Errorf("update finalizers of claim %s/%s: %w", namespace, name, err)
	}
	return nil
}

// annotateClaim sets one annotation of a claim; a claim being deleted still
// accepts it.
func annotateClaim(ctx context.Context, client kubernetes.Interface, claim *v1.PersistentVolumeClaim, key, value string) error {
	patch, err := json.Marshal(map[string]interface{}{
		"metadata": map[string]interface{}{"annotations": map[string]string{key: value}},
	})
	if err != nil {
		return err
	}
	_, err = client.CoreV1().PersistentVolumeClaims(claim.Namespace).Patch(ctx, claim.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	return err
}
