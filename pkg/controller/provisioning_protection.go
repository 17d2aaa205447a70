package controller

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/controller/library"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// protectClaim puts the provisioning-protection finalizer on a claim before
// its first CreateVolume. Until the write has succeeded no CreateVolume is
// made: a volume whose claim could vanish unnoticed is exactly the leak the
// finalizer exists to prevent. What the request was made with (records) is
// recorded in the same write, see request_records.go; a claim whose
// finalizer is there already must record the same. A restore's snapshot
// handle is recorded too, so that the call can be replayed even once the snapshot
// is gone (see provisionstate.AnnRestoredSnapshotHandle). In node deployment
// the node is recorded in it too (provisionstate.AnnProvisioningNode), and
// rewritten when the finalizer is there but names another node, so that
// only this node's sidecar replays the call.
func (p *Provisioner) protectClaim(ctx context.Context, claim *v1.PersistentVolumeClaim, snapshotHandle string, records requestRecords) error {
	// The lib's copy may be older than the cache; a claim whose deletion has
	// begun gets no new CreateVolume.
	current, err := p.opts.ClaimLister.PersistentVolumeClaims(claim.Namespace).Get(claim.Name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err := liveForProvisioning(claim, current, err); err != nil {
		return err
	}
	if err := records.matches(current); err != nil {
		return err
	}
	record := records.options()
	if snapshotHandle != "" {
		record = append(record, finalizer.WithAnnotation(provisionstate.AnnRestoredSnapshotHandle, snapshotHandle))
	}
	if p.node != nil {
		if previous := current.Annotations[provisionstate.AnnProvisioningNode]; previous != "" && previous != p.node.NodeName {
			klog.FromContext(ctx).V(2).Info("Claim moves to this node for provisioning", "previousNode", previous)
		}
		record = append(record, finalizer.WithAnnotation(provisionstate.AnnProvisioningNode, p.node.NodeName))
	}
	had := finalizer.Has(current, provisionstate.ProvisioningProtectionFinalizer)
	write, err := p.addClaimFinalizer(ctx, current, provisionstate.ProvisioningProtectionFinalizer, func(live *v1.PersistentVolumeClaim, err error) error {
		if err := liveForProvisioning(claim, live, err); err != nil {
			return err
		}
		return records.matches(live)
	}, record...)
	if err != nil {
		return fmt.Errorf("adding the provisioning-protection finalizer before CreateVolume: %w", err)
	}
	wrote := write.Claim != nil
	if _, scheduled := claim.Annotations[annSelectedNode]; wrote && scheduled {
		// For the library's reschedule, should CreateVolume ask for one.
		p.library.FinalizerWritten(write)
	}
	switch {
	case wrote && !had:
		p.metrics.FinalizersAdded.Inc()
		klog.FromContext(ctx).V(4).Info("Added provisioning-protection finalizer")
	case wrote:
		klog.FromContext(ctx).V(4).Info("Updated what the provisioning-protection finalizer records")
	}
	return nil
}

// liveForProvisioning refuses a claim that is gone, replaced or being
// deleted: current is its latest copy, err the error of reading it.
func liveForProvisioning(claim, current *v1.PersistentVolumeClaim, err error) error {
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("claim %s/%s is gone", claim.Namespace, claim.Name)
	case err != nil:
		return err
	case current.UID != claim.UID:
		return fmt.Errorf("claim %s/%s was replaced by a new claim", claim.Namespace, claim.Name)
	case current.DeletionTimestamp != nil:
		return fmt.Errorf("claim %s/%s is being deleted", claim.Namespace, claim.Name)
	}
	return nil
}

// addClaimFinalizer adds a finalizer to claim with a write pinned to its
// version, and returns that write (no claim when nothing was written). A
// cached copy is often a version behind (the binder and the library
// annotate claims too), so on a conflict it reads the live claim once, lets
// check refuse it, and writes again on that version.
func (p *Provisioner) addClaimFinalizer(ctx context.Context, claim *v1.PersistentVolumeClaim, name string, check func(*v1.PersistentVolumeClaim, error) error, opts ...finalizer.Option) (library.FinalizerWrite, error) {
	var write library.FinalizerWrite
	to := finalizer.PersistentVolumeClaimsReporting(p.opts.ProtectionClient, func(from string, stored *v1.PersistentVolumeClaim) {
		write = library.FinalizerWrite{From: from, Claim: stored}
	})
	_, err := finalizer.Add(ctx, to, claim, name, opts...)
	if !apierrors.IsConflict(err) {
		return write, err
	}
	live, err := p.opts.ProtectionClient.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
	if err := check(live, err); err != nil {
		return library.FinalizerWrite{}, err
	}
	_, err = finalizer.Add(ctx, to, live, name, opts...)
	return write, err
}

// protectCloneSource puts the cloning-protection finalizer on the claim a
// clone reads, before CreateVolume: the source must stay until the clone
// exists, and the claim protection controller removes the finalizer
// afterwards.
func (p *Provisioner) protectCloneSource(ctx context.Context, source *v1.PersistentVolumeClaim) error {
	usable := func(live *v1.PersistentVolumeClaim, err error) error {
		switch {
		case apierrors.IsNotFound(err):
			return fmt.Errorf("data source claim %s/%s is gone", source.Namespace, source.Name)
		case err != nil:
			return err
		case live.UID != source.UID:
			return fmt.Errorf("data source claim %s/%s was replaced by a new claim", source.Namespace, source.Name)
		case live.DeletionTimestamp != nil:
			return fmt.Errorf("data source claim %s/%s is being deleted", source.Namespace, source.Name)
		}
		return nil
	}
	if _, err := p.addClaimFinalizer(ctx, source, provisionstate.CloningProtectionFinalizer, usable); err != nil {
		return fmt.Errorf("adding the cloning-protection finalizer to the data source before CreateVolume: %w", err)
	}
	return nil
}
