package claimconditions

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
)

// HandOff removes the condition from every claim of this sidecar that
// carries it, when the sidecar stops serving them (its workers have
// stopped: shutdown, or leadership lost). The condition says what this
// sidecar does for the claim; whoever serves the claim next may not know it
// (upstream external-provisioner after an image rollback), and would bind
// the claim with the condition still saying it is being provisioned. The
// next leader of this sidecar writes it again where it still applies, once
// the state has lasted Settle.
//
// Each removal is one status patch pinned to the claim's version. The caches
// stopped with the workers, and claim protection's hand-off writes the same
// claims meanwhile: a patch that conflicts reads the claim from the API
// server and decides again. It stops when ctx ends and returns how many it
// removed.
func (c *Controller) HandOff(ctx context.Context) int {
	logger := klog.FromContext(ctx)
	claims, err := c.claims.List(labels.Everything())
	if err != nil {
		logger.Error(err, "Cannot list the claims to remove their condition from")
		return 0
	}
	removed, left := 0, 0
	for _, claim := range claims {
		carried := conditionOf(claim)
		if carried == nil || !c.concerns(claim) {
			continue
		}
		if ctx.Err() != nil {
			left++
			continue
		}
		switch done, err := c.handOffClaim(ctx, claim); {
		case err != nil:
			left++
			logger.V(2).Info("Condition not removed at hand-off", "PVC", klog.KObj(claim), "reason", err.Error())
		case done:
			removed++
		}
	}
	if removed > 0 || left > 0 {
		logger.Info("Removed the claim condition from the claims this sidecar no longer serves", "removed", removed, "left", left)
	}
	return removed
}

// handOffAttempts bounds the reads of a claim that changed since it was
// decided on.
const handOffAttempts = 3

// handOffClaim removes the condition from claim, reading it again after a
// conflict, and reports whether it removed it.
func (c *Controller) handOffClaim(ctx context.Context, claim *v1.PersistentVolumeClaim) (bool, error) {
	for range handOffAttempts {
		carried := conditionOf(claim)
		if carried == nil {
			return false, nil
		}
		err := c.write(ctx, claim, carried, State{})
		switch {
		case err == nil:
			return true, nil
		case apierrors.IsNotFound(err):
			return false, nil
		case !apierrors.IsConflict(err):
			return false, err
		}
		live, err := c.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		claim = live
	}
	return false, fmt.Errorf("claim %s kept changing", klog.KObj(claim))
}
