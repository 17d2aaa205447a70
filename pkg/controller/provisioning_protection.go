package controller

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
)

// protectClaim puts the provisioning-protection finalizer on a claim before
// its first CreateVolume. Until the write has succeeded no CreateVolume is
// made: a volume whose claim could vanish unnoticed is exactly the leak the
// finalizer exists to prevent.
func (p *Provisioner) protectClaim(ctx context.Context, claim *v1.PersistentVolumeClaim) error {
	// The lib's copy may be older than the cache; a claim whose deletion has
	// begun gets no new CreateVolume.
	current, err := p.opts.ClaimLister.PersistentVolumeClaims(claim.Namespace).Get(claim.Name)
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("claim %s/%s is gone", claim.Namespace, claim.Name)
	case err != nil:
		return err
	case current.UID != claim.UID:
		return fmt.Errorf("claim %s/%s was replaced by a new claim", claim.Namespace, claim.Name)
	case current.DeletionTimestamp != nil:
		return fmt.Errorf("claim %s/%s is being deleted", claim.Namespace, claim.Name)
	case hasFinalizer(current, ProvisioningProtectionFinalizer):
		return nil
	}
	if err := patchClaimFinalizers(ctx, p.opts.Client, claim.Namespace, claim.Name, []string{ProvisioningProtectionFinalizer}, nil); err != nil {
		return fmt.Errorf("adding the provisioning-protection finalizer before CreateVolume: %w", err)
	}
	p.metrics.FinalizersAdded.Inc()
	klog.FromContext(ctx).V(4).Info("Added provisioning-protection finalizer", "PVC", klog.KObj(claim))
	return nil
}
