package claimconditions

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// conditionPatch is the strategic-merge patch of a claim's status that sets
// cond, or removes the condition of ConditionType when cond is nil, and
// nothing else. A claim's status.conditions merge by type, so the other
// conditions (Resizing, ModifyingVolume, ...) stay as they are; the rest of
// the status is not in the patch. The patch, built by package finalizer as
// every pinned write is, carries the claim's resourceVersion and UID: the
// API server refuses it with 409 Conflict when the claim changed since the
// copy it was decided on (a patch that sets a resourceVersion is checked
// against it, as an update is), or was replaced by another of the same
// name.
//
// Never an update of the status: the claim cache keeps only the phase and
// this condition of a claim's status (cmd/csi-provisioner/informers.go),
// and an update of that copy would erase the rest (capacity, access modes,
// allocatedResources, the resizer's conditions).
func conditionPatch(claim *v1.PersistentVolumeClaim, cond *v1.PersistentVolumeClaimCondition) ([]byte, error) {
	entry := map[string]any{"type": ConditionType, "$patch": "delete"}
	if cond != nil {
		// Spelled out rather than marshalled: an unset lastProbeTime
		// would be sent as null.
		entry = map[string]any{
			"type":               cond.Type,
			"status":             cond.Status,
			"reason":             cond.Reason,
			"message":            cond.Message,
			"lastTransitionTime": cond.LastTransitionTime,
		}
	}
	return finalizer.Patch(claim, finalizer.Change{Status: map[string]any{"conditions": []any{entry}}})
}

// patchStatus sends a patch of the claim's status subresource.
func patchStatus(ctx context.Context, client kubernetes.Interface, claim *v1.PersistentVolumeClaim, patch []byte) error {
	_, err := sendStatusPatch(ctx, client, claim, patch)
	return err
}

// RemoveCondition removes the condition of ConditionType from claim with
// the one status patch the controller sends, pinned to the claim's
// resourceVersion and UID, and returns the claim as stored. For the
// careful-rollback check, which clears it on the controller's behalf.
func RemoveCondition(ctx context.Context, client kubernetes.Interface, claim *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	patch, err := conditionPatch(claim, nil)
	if err != nil {
		return nil, err
	}
	return sendStatusPatch(ctx, client, claim, patch)
}

func sendStatusPatch(ctx context.Context, client kubernetes.Interface, claim *v1.PersistentVolumeClaim, patch []byte) (*v1.PersistentVolumeClaim, error) {
	stored, err := client.CoreV1().PersistentVolumeClaims(claim.Namespace).Patch(ctx, claim.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if apierrors.IsForbidden(err) {
		// The usual cause on a fresh install: the opt-in manifest is
		// missing.
		return nil, fmt.Errorf("the RBAC rules must allow patch on persistentvolumeclaims/status (deploy/kubernetes/rbac-claim-conditions.yaml): %w", err)
	}
	return stored, err
}

// resultOf is the result label of a write's error.
func resultOf(err error) string {
	switch {
	case err == nil:
		return ResultSuccess
	case apierrors.IsConflict(err):
		return ResultConflict
	case apierrors.IsNotFound(err):
		return ResultNotFound
	}
	return ResultError
}
