package claimconditions

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
// Each removal is one status patch pinned to the cached claim's version: a
// claim changed since (by the next leader, say) conflicts and is left as
// it is. It stops when ctx ends and returns how many it removed.
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
		switch err := c.write(ctx, claim, carried, State{}); {
		case err == nil:
			removed++
		case apierrors.IsConflict(err), apierrors.IsNotFound(err):
		default:
			left++
			logger.V(2).Info("Condition not removed at hand-off", "PVC", klog.KObj(claim), "err", err)
		}
	}
	if removed > 0 || left > 0 {
		logger.Info("Removed the claim condition from the claims this sidecar no longer serves", "removed", removed, "left", left)
	}
	return removed
}
