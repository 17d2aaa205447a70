package claimconditions

import (
	"context"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
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
	carriesIt := func(claim *v1.PersistentVolumeClaim) bool { return conditionOf(claim) != nil && c.concerns(claim) }
	removed, left, err := reconcile.HandOffCached(ctx, c.claims.List, carriesIt, c.handOffClaim)
	if err != nil {
		logger.Error(err, "Cannot list the claims to remove their condition from")
		return 0
	}
	if removed > 0 || left > 0 {
		logger.Info("Removed the claim condition from the claims this sidecar no longer serves", "removed", removed, "left", left)
	}
	return removed
}

// handOffClaim removes the condition from claim and reports whether it
// did; a patch that conflicts is decided again on a fresh copy.
func (c *Controller) handOffClaim(ctx context.Context, claim *v1.PersistentVolumeClaim) (bool, error) {
	get := func(ctx context.Context, claim *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
		return c.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
	}
	return reconcile.OnFreshCopy(ctx, claim, get, func(claim *v1.PersistentVolumeClaim) (bool, error) {
		carried := conditionOf(claim)
		if carried == nil {
			return false, nil
		}
		return true, c.write(ctx, claim, carried, State{})
	})
}
