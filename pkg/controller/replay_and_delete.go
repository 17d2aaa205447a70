package controller

import (
	"context"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// AnnAbandonedVolume records on a claim deleted during provisioning the
// handle of the volume found for it, while that volume is being deleted.
const AnnAbandonedVolume = "provisioner.storage.kubernetes.io/abandoned-volume"

// ReasonAbandonedVolume is the event on a claim whose volume was deleted
// because the claim was deleted while it was being provisioned.
const ReasonAbandonedVolume = "AbandonedVolumeDeleted"

// ReplayAndDelete settles a claim being deleted while a CreateVolume made
// for it, perhaps by an earlier process, may still be running: it replays
// that CreateVolume and deletes what it returns. CreateVolume is idempotent
// by name: calling it again returns the volume once the driver has it. It
// returns true once no volume for the claim exists or can appear, false
// while another call for the claim runs in this process.
//
// In node deployment only the sidecar of the claim's provisionstate.ProvisioningNode may
// replay: any other returns false and an error wrapping ErrOtherNode.
func (p *Provisioner) ReplayAndDelete(ctx context.Context, claim *v1.PersistentVolumeClaim) (bool, error) {
	if p.node != nil {
		switch node := provisionstate.ProvisioningNode(claim); node {
		case p.node.NodeName:
		case "":
			return false, fmt.Errorf("%w: claim %s records no node, so no sidecar knows which node's driver may hold its volume", ErrOtherNode, klog.KObj(claim))
		default:
			return false, fmt.Errorf("%w: claim %s was provisioned by node %q, this is node %q", ErrOtherNode, klog.KObj(claim), node, p.node.NodeName)
		}
	}
	previous, ok := p.calls.Begin(claim.UID)
	if !ok {
		return false, nil
	}
	outcome := previous
	defer func() { p.calls.End(claim.UID, outcome) }()

	req, err := p.abandonedRequest(ctx, claim)
	if err != nil {
		return false, fmt.Errorf("cannot rebuild CreateVolume to find the volume of deleted claim: %w", err)
	}
	logger := klog.FromContext(ctx).WithValues("volume", req.Name)
	if handle := claim.Annotations[AnnAbandonedVolume]; handle != "" {
		// An earlier attempt found the volume and may have deleted it
		// already: CreateVolume now would make a new one.
		ok, err := p.deleteAbandoned(ctx, claim, req, handle)
		if ok {
			outcome = provisionstate.Final
		}
		return ok, err
	}
	callCtx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	resp, err := p.opts.CSIClient.CreateVolume(callCtx, req)
	cancel()
	switch {
	case status.Code(err) == codes.AlreadyExists:
		// A volume of that name exists but the request no longer matches
		// it: never forget it silently.
		return false, fmt.Errorf("driver reports volume %s exists with other properties; delete it in the storage backend, then remove finalizer %s: %w", req.Name, provisionstate.ProvisioningProtectionFinalizer, err)
	case err != nil && provisioningState(err, false) == controller.ProvisioningFinished:
		// A final error: the driver has no volume of that name.
		outcome = provisionstate.Final
		logger.V(2).Info("No volume was created for the deleted claim", "err", err)
		return true, nil
	case err != nil:
		return false, fmt.Errorf("CreateVolume to find the volume of deleted claim: %w", err)
	}

	handle := resp.GetVolume().GetVolumeId()
	// Recorded before DeleteVolume so that a crash after it never leads to
	// a CreateVolume that would make the volume again.
	if _, err := finalizer.Write(ctx, finalizer.PersistentVolumeClaims(p.opts.ProtectionClient), claim,
		finalizer.Change{SetAnnotations: map[string]string{AnnAbandonedVolume: handle}}); err != nil {
		return false, fmt.Errorf("recording the volume of deleted claim before deleting it: %w", err)
	}
	ok, err = p.deleteAbandoned(ctx, claim, req, handle)
	if ok {
		outcome = provisionstate.Final
	}
	return ok, err
}

// deleteAbandoned deletes the volume found for a claim deleted during
// provisioning.
func (p *Provisioner) deleteAbandoned(ctx context.Context, claim *v1.PersistentVolumeClaim, req *csi.CreateVolumeRequest, handle string) (bool, error) {
	logger := klog.FromContext(ctx).WithValues("volume", req.Name)
	callCtx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	_, err := p.opts.CSIClient.DeleteVolume(callCtx, &csi.DeleteVolumeRequest{VolumeId: handle, Secrets: req.Secrets})
	cancel()
	if isNotFound(err) {
		logger.V(2).Info("The volume of the deleted claim is already gone", "handle", handle)
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("DeleteVolume %s of deleted claim: %w", handle, err)
	}
	p.metrics.AbandonedVolumesDeleted.Inc()
	p.opts.EventRecorder.Eventf(claim, v1.EventTypeNormal, ReasonAbandonedVolume,
		"Deleted volume %s (handle %s), made for this claim while it was being deleted", req.Name, handle)
	logger.Info("Deleted the volume of a claim deleted during provisioning", "handle", handle)
	return true, nil
}

// abandonedRequest rebuilds the CreateVolume request of a claim from its
// StorageClass, as Provision made it. The checks Provision makes before a
// first call (a clone source being deleted, say) are not repeated: the
// replay must ask for exactly what the first call asked for.
func (p *Provisioner) abandonedRequest(ctx context.Context, claim *v1.PersistentVolumeClaim) (*csi.CreateVolumeRequest, error) {
	className := ""
	if claim.Spec.StorageClassName != nil {
		className = *claim.Spec.StorageClassName
	}
	class, err := p.opts.ClassLister.Get(className)
	if err != nil {
		return nil, fmt.Errorf("StorageClass %q: %w", className, err)
	}
	var node *v1.Node
	switch name := claim.Annotations[annSelectedNode]; {
	case p.node != nil:
		// ReplayAndDelete checked that the call was made on this node.
		node = p.node.node
	case name != "" && p.opts.NodeLister != nil:
		// A node gone since then leaves the request without it.
		node, _ = p.opts.NodeLister.Get(name)
	}
	req, _, err := p.prepare(ctx, controller.ProvisionOptions{StorageClass: class, PVC: claim, SelectedNode: node})
	handle := claim.Annotations[provisionstate.AnnRestoredSnapshotHandle]
	if err == nil {
		return req, p.replayMutableParameters(ctx, claim, req)
	}
	if handle == "" {
		return nil, err
	}
	// The snapshot or its content is gone: the handle recorded before the
	// first call rebuilds the same request.
	klog.FromContext(ctx).V(2).Info("Replaying a restore from its recorded snapshot handle", "handle", handle, "err", err)
	sourceless := claim.DeepCopy()
	sourceless.Spec.DataSource, sourceless.Spec.DataSourceRef = nil, nil
	req, _, err = p.prepare(ctx, controller.ProvisionOptions{StorageClass: class, PVC: sourceless, SelectedNode: node})
	if err != nil {
		return nil, err
	}
	req.VolumeContentSource = &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Snapshot{
		Snapshot: &csi.VolumeContentSource_SnapshotSource{SnapshotId: handle},
	}}
	return req, p.replayMutableParameters(ctx, claim, req)
}

// replayMutableParameters adds the claim's VolumeAttributesClass parameters
// to a replayed request. A class's parameters are immutable, so only a
// deleted class can make them differ; the replay then goes without, as a
// driver finds its volume by name.
func (p *Provisioner) replayMutableParameters(ctx context.Context, claim *v1.PersistentVolumeClaim, req *csi.CreateVolumeRequest) error {
	className := p.attributesClassName(claim)
	params, err := p.mutableParameters(ctx, className)
	if apierrors.IsNotFound(err) {
		klog.FromContext(ctx).V(2).Info("Replaying without the deleted VolumeAttributesClass", "volumeAttributesClass", className)
		return nil
	}
	req.MutableParameters = params
	return err
}

// restoredHandle is the snapshot handle a request restores, "" for others.
func restoredHandle(req *csi.CreateVolumeRequest) string {
	return req.GetVolumeContentSource().GetSnapshot().GetSnapshotId()
}
