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
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

// Provisioner provisions and deletes volumes through a CSI driver. It
// implements the lib's Provisioner, BlockProvisioner and Qualifier.
type Provisioner struct {
	opts    Options
	calls   CallTracker
	metrics *Metrics
	deleted *deletedVolumes
}

var (
	_ controller.Provisioner      = &Provisioner{}
	_ controller.BlockProvisioner = &Provisioner{}
	_ controller.Qualifier        = &Provisioner{}
)

// New returns a Provisioner for the driver described by opts.
func New(opts Options) (*Provisioner, error) {
	switch {
	case opts.DriverName == "":
		return nil, errors.New("provisioner needs a driver name")
	case opts.Client == nil || opts.CSIClient == nil:
		return nil, errors.New("provisioner needs a Kubernetes client and a CSI client")
	case opts.ClaimLister == nil || opts.VolumeLister == nil || opts.ClassLister == nil || opts.VolumeAttachmentLister == nil:
		return nil, errors.New("provisioner needs claim, volume, class and VolumeAttachment listers")
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
	case opts.VolumeNamePrefix == "":
		return nil, errors.New("provisioner needs a volume name prefix")
	}
	metrics := opts.Metrics
	if metrics == nil {
		metrics = NewMetrics()
	}
	return &Provisioner{opts: opts, calls: opts.Calls, metrics: metrics, deleted: newDeletedVolumes(deletedVolumesKept)}, nil
}

// SupportsBlock reports that raw block claims may be sent to the driver; a
// driver that cannot make one answers CreateVolume with an error.
func (p *Provisioner) SupportsBlock(ctx context.Context) bool { return true }

// ShouldProvision leaves claims whose data source is filled by a volume
// populator to that populator.
func (p *Provisioner) ShouldProvision(ctx context.Context, claim *v1.PersistentVolumeClaim) bool {
	return !isPopulatorClaim(claim)
}
