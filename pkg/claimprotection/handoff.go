package claimprotection

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// ReasonProtectionKept is the event on a claim that keeps the
// provisioning-protection finalizer when the sidecar stops serving it.
const ReasonProtectionKept = "ProvisioningProtectionKept"

const msgKept = "The sidecar stopped while a CreateVolume for this claim may have made a volume: the finalizer " +
	provisionstate.ProvisioningProtectionFinalizer + " stays, so that the volume is not leaked. A csi-protect sidecar takes it up; " +
	"a provisioner that does not know it (upstream external-provisioner) never removes it: once the claim is Bound, remove it by hand (README, Back to upstream)"

// HandOff leaves, when the sidecar stops serving claims (its workers have
// stopped: shutdown, or leadership lost), no provisioning-protection
// finalizer that nothing needs. Whoever serves the claims next may not know
// the finalizer (upstream external-provisioner after an image rollback): a
// claim it then binds would keep it, and its deletion would never end.
//
// It removes the finalizer, with the request records, from each claim of
// this sidecar that is Bound, and from each whose last CreateVolume in this
// process ended with a final error (no volume was made; a sidecar that
// provisions it again puts the finalizer back first), as a sync would.
// Every other claim keeps it, since a volume may exist that only the
// finalizer accounts for, and is told so with an event. Each removal is one
// write pinned to the claim's version. It stops when ctx ends and returns
// how many claims it released.
func (c *Controller) HandOff(ctx context.Context) int {
	logger := klog.FromContext(ctx)
	protected := func(claim *v1.PersistentVolumeClaim) bool {
		return finalizer.Has(claim, provisionstate.ProvisioningProtectionFinalizer) && c.handsOff(claim)
	}
	released, kept, err := reconcile.HandOffCached(ctx, c.claims.List, protected, c.handOffClaim)
	if err != nil {
		logger.Error(err, "Cannot list the claims to hand off")
		return 0
	}
	if released > 0 || kept > 0 {
		logger.Info("Handed off the claims this sidecar no longer serves", "released", released, "kept", kept)
	}
	return released
}

// handOffClaim removes the finalizer from claim if it needs it no more, or
// tells why it stays, and reports whether it removed it; a write that
// conflicts is decided again on a fresh copy (reconcile.OnFreshCopy).
func (c *Controller) handOffClaim(ctx context.Context, claim *v1.PersistentVolumeClaim) (bool, error) {
	change := finalizer.Change{
		Remove:            []string{provisionstate.ProvisioningProtectionFinalizer},
		RemoveAnnotations: slices.Clone(provisionstate.RequestRecords),
	}
	return reconcile.OnFreshCopy(ctx, claim, c.getClaim, func(claim *v1.PersistentVolumeClaim) (bool, error) {
		if !finalizer.Has(claim, provisionstate.ProvisioningProtectionFinalizer) {
			return false, nil
		}
		if !c.needsNoProtection(claim) {
			c.recorder.Event(claim, v1.EventTypeNormal, ReasonProtectionKept, msgKept)
			return false, nil
		}
		return finalizer.Write(ctx, finalizer.PersistentVolumeClaims(c.client), claim, change)
	})
}

// getClaim reads claim from the API server.
func (c *Controller) getClaim(ctx context.Context, claim *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	return c.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
}

// needsNoProtection tells whether claim's finalizer protects nothing now:
// it is Bound, or its last CreateVolume in this process was refused for
// good.
func (c *Controller) needsNoProtection(claim *v1.PersistentVolumeClaim) bool {
	return claim.Status.Phase == v1.ClaimBound || c.calls.State(claim.UID) == provisionstate.Final
}

// handsOff tells the claims this sidecar hands off: those of its driver
// and, with --node-deployment, of its node.
func (c *Controller) handsOff(claim *v1.PersistentVolumeClaim) bool {
	if c.nodeName != "" && provisionstate.ProvisioningNode(claim) != c.nodeName {
		return false
	}
	return c.serves == nil || c.serves(claim)
}
