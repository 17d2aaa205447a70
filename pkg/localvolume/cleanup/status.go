package cleanup

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// Reasons of the DeletionBlocked condition.
const (
	// ConditionReasonBoundVolumes (True): PVs of the owner are bound to
	// claims.
	ConditionReasonBoundVolumes = "BoundVolumes"
	// ConditionReasonRetainedVolumes (True): PVs of the owner were released
	// and are kept by their reclaim policy (Retain).
	ConditionReasonRetainedVolumes = "RetainedVolumes"
	// ConditionReasonBoundAndRetainedVolumes (True): both of the above.
	ConditionReasonBoundAndRetainedVolumes = "BoundAndRetainedVolumes"
	// ConditionReasonNoBlockingVolumes (False): no PV blocks the deletion
	// any more; the PVs left are being cleaned up.
	ConditionReasonNoBlockingVolumes = "NoBlockingVolumes"
)

// maxNamedVolumes bounds how many blocking PVs of each kind the condition
// names: it is stored in the object, however many PVs block.
const maxNamedVolumes = 5

// deviceCount is the totalProvisionedDeviceCount of o; unset counts as 0,
// so that a set without PVs is not written just to say so.
func deviceCount(o *owner) int32 {
	if o.deviceCount == nil {
		return 0
	}
	return *o.deviceCount
}

// volumeCount is how many PVs of the owner key the cache has, for the
// device count of a LocalVolumeSet.
func (c *Controller) volumeCount(key OwnerKey) int32 {
	objs, err := c.volumeIndex.ByIndex(ownerIndex, indexKey(key))
	if err != nil {
		return 0
	}
	return toInt32(len(objs))
}

func toInt32(n int) int32 {
	return int32(min(n, math.MaxInt32))
}

// countStale tells whether a LocalVolumeSet's totalProvisionedDeviceCount
// differs from the number of its PVs in the cache.
func (c *Controller) countStale(o *owner) bool {
	return o.key.Kind == KindLocalVolumeSet && deviceCount(o) != c.volumeCount(o.key)
}

// deletionBlocked is the DeletionBlocked condition of an owner being
// deleted whose PVs block by blocks (by PV name): True if any does, else
// False.
func deletionBlocked(blocks map[string]blockage, generation int64, now time.Time) metav1.Condition {
	cond := metav1.Condition{
		Type:               local.ConditionDeletionBlocked,
		ObservedGeneration: generation,
		LastTransitionTime: metav1.NewTime(now),
	}
	var bound, retained []string
	// In PV name order, so that the message reads the same on every sync
	// and an unchanged blockage is never written again.
	for _, name := range slices.Sorted(maps.Keys(blocks)) {
		if b := blocks[name]; b.reason == ReasonBlockedByBoundVolume {
			bound = append(bound, b.short)
		} else {
			retained = append(retained, b.short)
		}
	}
	switch {
	case len(bound) > 0 && len(retained) > 0:
		cond.Reason = ConditionReasonBoundAndRetainedVolumes
	case len(bound) > 0:
		cond.Reason = ConditionReasonBoundVolumes
	case len(retained) > 0:
		cond.Reason = ConditionReasonRetainedVolumes
	default:
		cond.Status = metav1.ConditionFalse
		cond.Reason = ConditionReasonNoBlockingVolumes
		cond.Message = "No PersistentVolume blocks the deletion any more; the node agents wipe and delete the ones left, then the finalizer goes"
		return cond
	}
	cond.Status = metav1.ConditionTrue
	parts := []string{fmt.Sprintf("Deletion blocked by %s.", volumes(len(blocks)))}
	if len(bound) > 0 {
		parts = append(parts, fmt.Sprintf("Bound to a claim (%d): %s; delete the claims to release them.", len(bound), bounded(bound)))
	}
	if len(retained) > 0 {
		parts = append(parts, fmt.Sprintf("Released and kept by their reclaim policy (%d): %s; back up the data you need from them, then delete these PersistentVolumes.",
			len(retained), bounded(retained)))
	}
	cond.Message = strings.Join(parts, " ")
	return cond
}

func volumes(n int) string {
	if n == 1 {
		return "1 PersistentVolume"
	}
	return fmt.Sprintf("%d PersistentVolumes", n)
}

// bounded lists the first maxNamedVolumes names and how many more there
// are.
func bounded(names []string) string {
	if len(names) <= maxNamedVolumes {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamedVolumes], ", "), len(names)-maxNamedVolumes)
}

// writeStatus brings what the controller owns of the owner's status to
// what it found: the DeletionBlocked condition, when blocked is set, and
// the totalProvisionedDeviceCount of a LocalVolumeSet, count. It writes
// only what differs, through the status subresource, so that syncs of an
// owner whose state did not change write nothing. A False condition is
// written only over one that is there: an owner that was never blocked
// gets none. The merge patch is pinned like the finalizer patches to the
// version it was computed from: it replaces the whole conditions list, so
// a condition someone else wrote since must not be lost.
func (c *Controller) writeStatus(ctx context.Context, k *kind, o *owner, count int32, blocked *metav1.Condition) error {
	status := map[string]any{}
	if blocked != nil && (blocked.Status == metav1.ConditionTrue || meta.FindStatusCondition(o.conditions, blocked.Type) != nil) {
		// A copy: the cached object is not to be changed.
		conditions := slices.Clone(o.conditions)
		// lastTransitionTime changes only with the condition's status.
		if meta.SetStatusCondition(&conditions, *blocked) {
			status["conditions"] = conditions
		}
	}
	if o.key.Kind == KindLocalVolumeSet && deviceCount(o) != count {
		status["totalProvisionedDeviceCount"] = count
	}
	if len(status) == 0 {
		return nil
	}
	patch, err := finalizer.Patch(o.meta, finalizer.Change{Status: status})
	if err != nil {
		return err
	}
	err = k.patchStatus(ctx, o.key.Namespace, o.key.Name, patch)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("update status: %w", err)
	}
	logger := klog.FromContext(ctx)
	if _, ok := status["conditions"]; ok {
		logger.V(2).Info("Set condition", "type", blocked.Type, "status", blocked.Status, "reason", blocked.Reason)
	}
	if _, ok := status["totalProvisionedDeviceCount"]; ok {
		logger.V(4).Info("Set the provisioned device count", "count", count)
	}
	return nil
}
