// Package controller is the CSI provisioner: it implements the
// provisioning library's Provisioner, turning a claim and its StorageClass
// into a CreateVolume request and the driver's answer into a PV, and a
// released PV into a DeleteVolume. With provisioning protection it puts the
// provisioning-protection finalizer on a claim before CreateVolume, and the
// cloning-protection finalizer on a clone's source; pkg/claimprotection
// removes them. The two meet only through the interfaces cmd/csi-provisioner
// builds: the in-flight call tracker (CallTracker) and ReplayAndDelete.
package controller

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/controller/library"
	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

// Provisioner provisions and deletes volumes through a CSI driver. It
// implements the lib's Provisioner, BlockProvisioner and Qualifier.
type Provisioner struct {
	opts    Options
	calls   CallTracker
	metrics *Metrics
	// node is nil in the central deployment.
	node *nodeDeployment
	// infeasible holds claims back after an infeasible CreateVolume; the
	// library adapter hands them back to the library when the hold ends.
	infeasible *infeasibleHolds
	namer      *volumename.Namer
	// library is the adapter of the provisioning library: the provisioner
	// tells it its waits, finalizer writes and deleted volumes.
	library *library.Adapter
}

var (
	_ controller.Provisioner      = &Provisioner{}
	_ controller.BlockProvisioner = &Provisioner{}
	_ controller.Qualifier        = &Provisioner{}
)

// New returns a Provisioner for the driver described by opts.
func New(opts Options) (*Provisioner, error) {
	if nd := opts.NodeDeployment; nd != nil {
		if err := nd.validate(); err != nil {
			return nil, err
		}
		if opts.NodeLister == nil && opts.CSINodeLister == nil {
			opts.NodeLister, opts.CSINodeLister = LocalTopologyListers(opts.DriverName, nd.NodeName, nd.NodeInfo)
		}
	}
	switch {
	case opts.DriverName == "":
		return nil, errors.New("provisioner needs a driver name")
	case opts.Client == nil || opts.CSIClient == nil:
		return nil, errors.New("provisioner needs a Kubernetes client and a CSI client")
	case opts.ClaimLister == nil || opts.VolumeLister == nil || opts.ClassLister == nil:
		return nil, errors.New("provisioner needs claim, volume and class listers")
	case opts.topologyEnabled() && (opts.NodeLister == nil || opts.CSINodeLister == nil):
		return nil, errors.New("provisioner with topology needs Node and CSINode listers")
	case opts.Calls == nil:
		return nil, errors.New("provisioner needs a call tracker")
	case opts.SnapshotClient != nil && opts.SnapshotReaders == nil:
		return nil, errors.New("provisioner with a snapshot client needs a record of snapshot readers")
	case opts.EventRecorder == nil:
		return nil, errors.New("provisioner needs an event recorder")
	case opts.Timeout <= 0:
		return nil, errors.New("provisioner needs a positive CSI call timeout")
	case opts.RetryIntervalMax < 0:
		return nil, errors.New("provisioner needs a positive retry interval")
	}
	namer, err := volumename.New(volumename.Options{
		Prefix: opts.VolumeNamePrefix, UUIDLength: opts.VolumeNameUUIDLength,
		Template: opts.VolumeNameTemplate, MaxLength: opts.VolumeNameMaxLength,
	})
	if err != nil {
		return nil, err
	}
	if opts.ProtectionClient == nil {
		opts.ProtectionClient = opts.Client
	}
	metrics := opts.Metrics
	if metrics == nil {
		metrics = NewMetrics()
	}
	if opts.RetryIntervalMax == 0 {
		opts.RetryIntervalMax = defaultRetryIntervalMax
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	p := &Provisioner{
		opts: opts, calls: opts.Calls, metrics: metrics, namer: namer,
		library: library.New(library.Options{Client: opts.Client, Claims: opts.ClaimLister, Nodes: opts.NodeLister, Clock: opts.Clock}),
	}
	p.infeasible = newInfeasibleHolds(opts.Clock, opts.RetryIntervalMax, p.library.RequeueClaim)
	metrics.PendingClaims.track(p)
	if nd := opts.NodeDeployment; nd != nil {
		p.node = newNodeDeployment(opts.DriverName, *nd)
	}
	return p, nil
}

// SupportsBlock reports that raw block claims may be sent to the driver; a
// driver that cannot make one answers CreateVolume with an error.
func (p *Provisioner) SupportsBlock(ctx context.Context) bool { return true }

// ShouldProvision holds back for RetryIntervalMax a claim
// whose CreateVolume the driver refused as infeasible (see
// holdInfeasible). In node deployment it also leaves claims to
// the sidecar of their selected node, and may take a claim of an Immediate
// class for this node (see checkNode), which can block for the back-off
// delay (at most NodeDeployment.MaxDelay per attempt) or until ctx ends.
// A volume populator's claim passes, as upstream's does, so that the
// library's and Provision's events say it is left to the populator.
func (p *Provisioner) ShouldProvision(ctx context.Context, claim *v1.PersistentVolumeClaim) bool {
	if p.library.Superseded(claim) {
		klog.FromContext(ctx).V(4).Info("Not provisioning a copy of the claim older than its reschedule", "PVC", klog.KObj(claim), "resourceVersion", claim.ResourceVersion)
		return false
	}
	if remaining, held := p.infeasible.holding(claim, p.opts.ClassLister); held {
		klog.FromContext(ctx).V(4).Info("Provisioning held after an infeasible error", "PVC", klog.KObj(claim), "remaining", remaining)
		return false
	}
	if p.node == nil {
		return true
	}
	if !p.ServesClaim(claim) {
		// Checked before taking a claim, as upstream: the PV controller
		// writes this annotation on new claims, and taking one before it
		// did only ends in a conflict. The lib would refuse it anyway.
		return false
	}
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "PVC", klog.KObj(claim), "node", p.node.NodeName)
	owned, err := p.checkNode(klog.NewContext(ctx, logger), claim, nil)
	switch {
	case ctx.Err() != nil:
		return false
	case err != nil:
		// As upstream: let the attempt start; Provision checks again and
		// a failure there is reported with an event.
		logger.V(2).Info("Checking the node of the claim failed, Provision will check again", "err", err)
		return true
	}
	return owned
}

// ServesClaim tells whether this sidecar provisions claim: the PV
// controller handed it to this driver, or migrated it from the in-tree
// plugin the driver replaces.
func (p *Provisioner) ServesClaim(claim *v1.PersistentVolumeClaim) bool {
	return p.driver().ServesClaim(claim)
}
