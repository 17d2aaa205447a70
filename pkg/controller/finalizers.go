package controller

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// CloningProtectionFinalizer keeps a source claim from being deleted while a
// clone of it may still be created from its volume.
const CloningProtectionFinalizer = "provisioner.storage.kubernetes.io/cloning-protection"

// finalizerPatch is a merge patch that replaces the finalizer list. It
// carries the resourceVersion the list was computed from, so the API server
// refuses it with a conflict if anyone changed the object meanwhile and no
// other writer's finalizer is ever lost.
type finalizerPatch struct {
	Metadata finalizerPatchMeta `json:"metadata"`
}

type finalizerPatchMeta struct {
	ResourceVersion string   `json:"resourceVersion"`
	Finalizers      []string `json:"finalizers"`
}

func hasFinalizer(obj metav1.Object, finalizer string) bool {
	for _, f := range obj.GetFinalizers() {
		if f == finalizer {
			return true
		}
	}
	return false
}

// addClaimFinalizer adds finalizer to claim unless it is already there.
func addClaimFinalizer(ctx context.Context, client kubernetes.Interface, claim *v1.PersistentVolumeClaim, finalizer string) error {
	if hasFinalizer(claim, finalizer) {
		return nil
	}
	finalizers := append(append([]string{}, claim.Finalizers...), finalizer)
	return patchClaimFinalizers(ctx, client, claim, finalizers)
}

// removeClaimFinalizer removes finalizer from claim if it is there.
func removeClaimFinalizer(ctx context.Context, client kubernetes.Interface, claim *v1.PersistentVolumeClaim, finalizer string) error {
	if !hasFinalizer(claim, finalizer) {
		return nil
	}
	finalizers := make([]string, 0, len(claim.Finalizers))
	for _, f := range claim.Finalizers {
		if f != finalizer {
			finalizers = append(finalizers, f)
		}
	}
	return patchClaimFinalizers(ctx, client, claim, finalizers)
}

func patchClaimFinalizers(ctx context.Context, client kubernetes.Interface, claim *v1.PersistentVolumeClaim, finalizers []string) error {
	patch, err := json.Marshal(finalizerPatch{Metadata: finalizerPatchMeta{
		ResourceVersion: claim.ResourceVersion,
		Finalizers:      finalizers,
	}})
	if err != nil {
		return err
	}
	_, err = client.CoreV1().PersistentVolumeClaims(claim.Namespace).Patch(ctx, claim.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("update finalizers of claim %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	return nil
}
