package controller

import (
	"context"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/provisioning"
)

const annSelectedNode = "volume.kubernetes.io/selected-node"

// isPopulatorClaim tells whether a claim's data source is one this
// provisioner does not fill: a volume populator owns such claims.
func isPopulatorClaim(claim *v1.PersistentVolumeClaim) bool {
	ds := provisioning.DataSourceOf(claim)
	return ds != nil && !ds.IsClaim() && !ds.IsSnapshot()
}

// contentSource checks the claim's data source and returns the CSI content
// source that names it, with the source claim of a clone or the snapshot of
// a restore. It never returns a volume that would be silently empty: every
// refusal is an error. Whether the source is being deleted is Provision's
// to check.
func (p *Provisioner) contentSource(ctx context.Context, claim *v1.PersistentVolumeClaim) (*csi.VolumeContentSource, sources, error) {
	ds := provisioning.DataSourceOf(claim)
	switch {
	case ds == nil:
		return nil, sources{}, nil
	case !ds.IsClaim() && !ds.IsSnapshot():
		return nil, sources{}, &controller.IgnoredError{Reason: fmt.Sprintf("data source kind %q of API group %q is left to its volume populator", ds.Kind, ds.APIGroup)}
	}
	if err := p.crossNamespaceAllowed(claim, ds); err != nil {
		return nil, sources{}, err
	}
	if ds.IsSnapshot() {
		source, snapshot, err := p.snapshotSource(ctx, claim, ds)
		return source, sources{snapshot: snapshot}, err
	}
	source, clone, err := p.cloneSource(ctx, claim, ds)
	return source, sources{claim: clone}, err
}

// sources are the objects a claim's volume is filled from, protected while
// it is created.
type sources struct {
	claim    *v1.PersistentVolumeClaim
	snapshot *snapv1.VolumeSnapshot
}

// cloneSource checks that a claim may be cloned into the new claim and
// returns the CSI content source that names its volume.
func (p *Provisioner) cloneSource(ctx context.Context, claim *v1.PersistentVolumeClaim, ds *provisioning.DataSource) (*csi.VolumeContentSource, *v1.PersistentVolumeClaim, error) {
	if !p.opts.ControllerCapabilities[csi.ControllerServiceCapability_RPC_CLONE_VOLUME] {
		return nil, nil, fmt.Errorf("data source claim %s/%s: driver %s does not support cloning", ds.Namespace, ds.Name, p.opts.DriverName)
	}

	source, err := p.opts.ClaimLister.PersistentVolumeClaims(ds.Namespace).Get(ds.Name)
	if err != nil {
		return nil, nil, fmt.Errorf("data source claim %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	if source.Status.Phase != v1.ClaimBound || source.Spec.VolumeName == "" {
		return nil, nil, fmt.Errorf("data source claim %s/%s is not bound", ds.Namespace, ds.Name)
	}
	// Any StorageClass will do, as upstream allows: what matters is that the
	// source's volume is this driver's, checked on its PV below.
	if source.Spec.StorageClassName == nil {
		return nil, nil, fmt.Errorf("data source claim %s/%s has no StorageClass", ds.Namespace, ds.Name)
	}
	if isBlock(source) != isBlock(claim) {
		return nil, nil, fmt.Errorf("data source claim %s/%s has a different volume mode than the clone", ds.Namespace, ds.Name)
	}
	// Upstream's size rule: the clone's request against the source's
	// request. A driver that gives the clone less than its source holds
	// answers with a smaller volume than asked for, which is refused later.
	sourceSize := source.Spec.Resources.Requests[v1.ResourceStorage]
	requested := claim.Spec.Resources.Requests[v1.ResourceStorage]
	if requested.Cmp(sourceSize) < 0 {
		return nil, nil, fmt.Errorf("requested size %s is smaller than the request of data source claim %s/%s (%s)", requested.String(), ds.Namespace, ds.Name, sourceSize.String())
	}

	volume, err := p.opts.VolumeLister.Get(source.Spec.VolumeName)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, fmt.Errorf("volume %s of data source claim %s/%s not found", source.Spec.VolumeName, ds.Namespace, ds.Name)
		}
		return nil, nil, err
	}
	// An in-tree source of the plugin the driver replaces is its volume too.
	if volume, _, err = p.csiVolume(ctx, volume); err != nil {
		return nil, nil, fmt.Errorf("data source claim %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	if volume.Spec.CSI == nil || volume.Spec.CSI.Driver != p.opts.DriverName {
		return nil, nil, fmt.Errorf("volume %s of data source claim %s/%s is not a volume of driver %s", volume.Name, ds.Namespace, ds.Name, p.opts.DriverName)
	}
	if ref := volume.Spec.ClaimRef; ref == nil || ref.UID != source.UID {
		return nil, nil, fmt.Errorf("volume %s is not bound to data source claim %s/%s", volume.Name, ds.Namespace, ds.Name)
	}
	return &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Volume{
		Volume: &csi.VolumeContentSource_VolumeSource{VolumeId: volume.Spec.CSI.VolumeHandle},
	}}, source, nil
}
