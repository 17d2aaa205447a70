package rollback

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// claimWrite clears one aspect of claim with one write pinned to its
// resourceVersion, and returns the claim as stored (claim itself when
// there was nothing to write).
type claimWrite func(ctx context.Context, client kubernetes.Interface, claim *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error)

// clearProtection removes the provisioning-protection finalizer and the
// request records in one update, as the sidecar does once a claim is
// Bound: upstream's RBAC grants update on claims, not patch.
func clearProtection(ctx context.Context, client kubernetes.Interface, claim *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	stored := claim
	target := finalizer.PersistentVolumeClaimsReporting(client, func(_ string, s *v1.PersistentVolumeClaim) { stored = s })
	_, err := finalizer.Write(ctx, target, claim, finalizer.Change{
		Remove:            []string{provisionstate.ProvisioningProtectionFinalizer},
		RemoveAnnotations: slices.Clone(provisionstate.RequestRecords),
	})
	return stored, err
}

// clearCondition removes the claim condition with the claim conditions
// controller's own status patch, pinned to the claim's version.
func clearCondition(ctx context.Context, client kubernetes.Interface, claim *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	return claimconditions.RemoveCondition(ctx, client, claim)
}

// clearClaim writes a's clearing of claim. A conflict is read again once
// and decided again on the fresh claim: what changed may have settled it,
// or made it unsafe to clear. It returns the claim as it now stands, for
// the next aspect's write, and the finding with what became of it.
func (c *Checker) clearClaim(ctx context.Context, claim *v1.PersistentVolumeClaim, a claimAspect, f Finding) (*v1.PersistentVolumeClaim, Finding) {
	logger := klog.FromContext(ctx).WithValues("claim", klog.KObj(claim))
	for retried := false; ; retried = true {
		stored, err := a.write(ctx, c.client, claim)
		switch {
		case err == nil:
			logger.V(2).Info("Cleared", "what", f.What)
			f.Action = Action{Verb: Cleared}
			return stored, f
		case apierrors.IsNotFound(err):
			f.Action = noAction("the claim was deleted meanwhile")
			return claim, f
		case !apierrors.IsConflict(err):
			f.Action = needsYou(fmt.Sprintf("could not clear it: %v", err))
			return claim, f
		case retried:
			f.Action = needsYou("it changed twice while being cleared: run this again")
			return claim, f
		}
		logger.V(2).Info("Claim changed since it was read; reading it again", "err", err)
		fresh, err := c.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			f.Action = noAction("the claim was deleted meanwhile")
			return claim, f
		case err != nil:
			f.Action = needsYou(fmt.Sprintf("it changed while being cleared, and could not be read again: %v", err))
			return claim, f
		}
		claim = fresh
		d, found := a.decide(claim)
		if !found {
			f.Action = noAction("it changed meanwhile, and has nothing left to clear")
			return claim, f
		}
		f = claimFinding(claim, d)
		if !d.clear {
			return claim, f
		}
	}
}
