package controller

import (
	"context"
	"fmt"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/controller/topology"
)

// checkNode tells, in node deployment, whether this sidecar provisions the
// claim: only if its own node is selected. A claim of an Immediate class
// that no node was selected for yet may first be taken (becomeOwner); it is
// still not provisioned now: the claim updated with our node comes back
// through the informer and is provisioned then. class may be nil; it is
// then read when needed.
func (p *Provisioner) checkNode(ctx context.Context, claim *v1.PersistentVolumeClaim, class *storagev1.StorageClass) (bool, error) {
	switch selected := claim.Annotations[annSelectedNode]; selected {
	case p.node.NodeName:
		return true, nil
	case "":
		return false, p.tryToOwn(ctx, claim, class)
	default:
		klog.FromContext(ctx).V(5).Info("Claim is for another node", "selectedNode", selected)
		return false, nil
	}
}

// tryToOwn selects this node for a claim of an Immediate class if the class
// allows this node, after a random wait, if no other node was faster and the
// local driver has room for the volume.
func (p *Provisioner) tryToOwn(ctx context.Context, claim *v1.PersistentVolumeClaim, class *storagev1.StorageClass) error {
	if !p.node.ImmediateBinding || claim.DeletionTimestamp != nil || claim.Spec.VolumeName != "" {
		return nil
	}
	logger := klog.FromContext(ctx)
	if class == nil {
		if claim.Spec.StorageClassName == nil || *claim.Spec.StorageClassName == "" {
			return nil
		}
		var err error
		if class, err = p.opts.ClassLister.Get(*claim.Spec.StorageClassName); err != nil {
			return fmt.Errorf("StorageClass of claim %s: %w", klog.KObj(claim), err)
		}
	}
	if !p.driver().IsProvisioner(class.Provisioner) || class.VolumeBindingMode == nil || *class.VolumeBindingMode != storagev1.VolumeBindingImmediate {
		return nil
	}
	if len(class.AllowedTopologies) > 0 && p.topologyEnabled() {
		// The requirements CreateVolume would get on this node cannot be
		// built when the class does not allow this node's topology.
		if _, err := topology.Requirements(ctx, p.topologyRequest(claim, class, p.node.node)); err != nil {
			logger.V(5).Info("Not taking the claim: its StorageClass does not allow this node's topology", "err", err)
			return nil
		}
	}
	return p.becomeOwner(ctx, claim, class)
}

// becomeOwner sets the selected-node annotation of the claim to this node.
// It waits first, per claim with exponential back-off and jitter, and gives
// up once another node is selected. A conflict means that the claim changed
// since it was read, most likely because another node took it: the attempt
// is repeated, after a longer wait, which normally ends by seeing that node.
// It returns nil when this node or another one took the claim, or when
// neither did but there is nothing to do now.
func (p *Provisioner) becomeOwner(ctx context.Context, claim *v1.PersistentVolumeClaim, class *storagev1.StorageClass) error {
	logger := klog.FromContext(ctx)
	for {
		delay, attempts := p.node.backoff.next(claim.UID)
		logger.V(5).Info("Waiting before trying to take the claim", "delay", delay, "attempt", attempts+1)
		current, err := p.awaitTurn(ctx, claim, delay)
		if err != nil {
			return err
		}
		if current == nil {
			// A later need to take it starts from a short wait again.
			p.node.backoff.forget(claim.UID)
			return nil
		}
		// Checked as late as possible: it is the most expensive step. A
		// check that cannot be made (a precondition of CreateVolume fails)
		// does not keep the claim from being taken, so that provisioning
		// fails visibly, with events, as upstream.
		enough, err := p.hasCapacity(ctx, current, class)
		switch {
		case err != nil:
			logger.V(3).Info("Taking the claim although the capacity check failed", "err", err)
		case !enough:
			logger.V(4).Info("Not taking the claim: not enough capacity on this node")
			return nil
		}
		selected := current.DeepCopy()
		if selected.Annotations == nil {
			selected.Annotations = map[string]string{}
		}
		selected.Annotations[annSelectedNode] = p.node.NodeName
		logger.V(4).Info("Trying to take the claim", "resourceVersion", current.ResourceVersion)
		updated, err := p.opts.Client.CoreV1().PersistentVolumeClaims(current.Namespace).Update(ctx, selected, metav1.UpdateOptions{})
		switch {
		case apierrors.IsConflict(err):
			p.metrics.OwnershipConflicts.Inc()
			logger.V(4).Info("Conflict while taking the claim, trying again")
			continue
		case err != nil:
			return fmt.Errorf("selecting node %q for claim %s: %w", p.node.NodeName, klog.KObj(claim), err)
		}
		p.node.backoff.forget(claim.UID)
		logger.V(4).Info("Took the claim", "resourceVersion", updated.ResourceVersion)
		return nil
	}
}

// awaitTurn waits for delay, looking in the claim cache meanwhile whether
// the claim is still free to take. It returns the latest copy of the claim
// when the wait is over and the claim is still free, nil once it is not.
func (p *Provisioner) awaitTurn(ctx context.Context, claim *v1.PersistentVolumeClaim, delay time.Duration) (*v1.PersistentVolumeClaim, error) {
	timer := time.NewTimer(delay)
	defer timer.Stop()
	ticker := time.NewTicker(p.node.pollInterval())
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting to take claim %s: %w", klog.KObj(claim), context.Cause(ctx))
		case <-ticker.C:
			if current, err := p.freeClaim(ctx, claim); current == nil || err != nil {
				return nil, err
			}
		case <-timer.C:
			return p.freeClaim(ctx, claim)
		}
	}
}

// freeClaim returns the cached copy of the claim if no node is selected for
// it and it still needs a volume, nil otherwise.
func (p *Provisioner) freeClaim(ctx context.Context, claim *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	current, err := p.opts.ClaimLister.PersistentVolumeClaims(claim.Namespace).Get(claim.Name)
	var reason string
	switch {
	case apierrors.IsNotFound(err):
		reason = "the claim is gone"
	case err != nil:
		return nil, err
	case current.UID != claim.UID:
		reason = "the claim was replaced"
	case current.DeletionTimestamp != nil:
		reason = "the claim is being deleted"
	case current.Spec.VolumeName != "":
		reason = "the claim is bound"
	case current.Annotations[annSelectedNode] != "":
		klog.FromContext(ctx).V(5).Info("Not taking the claim: a node was selected for it meanwhile",
			"selectedNode", current.Annotations[annSelectedNode], "resourceVersion", current.ResourceVersion)
		return nil, nil
	default:
		return current, nil
	}
	klog.FromContext(ctx).V(5).Info("Not taking the claim", "reason", reason)
	return nil, nil
}

// hasCapacity asks the local driver with GetCapacity whether it has room
// for the claim's volume, with the parameters, capabilities and topology
// that CreateVolume would get on this node. A driver without GetCapacity
// is assumed to have room.
func (p *Provisioner) hasCapacity(ctx context.Context, claim *v1.PersistentVolumeClaim, class *storagev1.StorageClass) (bool, error) {
	requested := claim.Spec.Resources.Requests[v1.ResourceStorage]
	size := requested.Value()
	if size <= 0 {
		return true, nil
	}
	if !p.opts.ControllerCapabilities[csi.ControllerServiceCapability_RPC_GET_CAPACITY] {
		klog.FromContext(ctx).V(5).Info("Driver does not report capacity; assuming there is enough")
		return true, nil
	}
	req, _, err := p.prepare(ctx, controller.ProvisionOptions{StorageClass: class, PVC: claim, SelectedNode: p.node.node})
	if err != nil {
		return false, err
	}
	// With a selected node there is normally exactly one segment; room in
	// any of them will do, and without any the driver is asked once
	// without topology.
	segments := []*csi.Topology{nil}
	if requisite := req.GetAccessibilityRequirements().GetRequisite(); len(requisite) > 0 {
		segments = requisite
	}
	for _, segment := range segments {
		callCtx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
		resp, err := p.opts.CSIClient.GetCapacity(callCtx, &csi.GetCapacityRequest{
			VolumeCapabilities: req.VolumeCapabilities,
			Parameters:         req.Parameters,
			AccessibleTopology: segment,
		})
		cancel()
		if err != nil {
			return false, fmt.Errorf("GetCapacity: %w", err)
		}
		fits := size <= resp.AvailableCapacity
		if largest := resp.GetMaximumVolumeSize(); largest != nil && size > largest.Value {
			fits = false
		}
		klog.FromContext(ctx).V(5).Info("Capacity of the local driver", "segment", segment.GetSegments(),
			"available", resp.AvailableCapacity, "requested", size, "fits", fits)
		if fits {
			return true, nil
		}
	}
	return false, nil
}

// topologyRequest is what accessibility requirements are built from.
func (p *Provisioner) topologyRequest(claim *v1.PersistentVolumeClaim, class *storagev1.StorageClass, selected *v1.Node) topology.Request {
	return topology.Request{
		DriverName:        p.opts.DriverName,
		PVName:            claim.Name, // the claim name spreads StatefulSet replicas, as upstream does
		AllowedTopologies: class.AllowedTopologies,
		SelectedNode:      selected,
		StrictTopology:    p.opts.StrictTopology,
		ImmediateTopology: p.opts.ImmediateTopology,
		CSINodes:          p.opts.CSINodeLister,
		Nodes:             p.opts.NodeLister,
	}
}
