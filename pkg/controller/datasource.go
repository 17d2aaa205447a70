package controller

import (
	"context"
	"errors"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const annSelectedNode = "volume.kubernetes.io/selected-node"

// populatorMessage is upstream's Normal Provisioning event on a claim left
// to its volume populator (pkg/controller/controller.go, prepareProvision).
const populatorMessage = "Assuming an external populator will provision the volume"

// isPopulated tells whether a data source is one this provisioner does not
// fill: a volume populator owns its claim. As upstream, a VolumeSnapshot of
// another API group is no populator's but a refused restore (see
// contentSource). Unlike upstream, a PersistentVolumeClaim kind of another
// API group is not cloned as the core claim of that name, whose data it
// does not name.
func isPopulated(ds *provisionstate.DataSource) bool {
	return !ds.IsClaim() && ds.Kind != provisionstate.SnapshotKind
}

// leaveToPopulator returns, for a claim whose volume a populator fills,
// the IgnoredError that leaves it to the populator, after upstream's event
// saying so; it returns nil for any other claim. As upstream, the claim is
// first checked like any cross-namespace data source, and the event comes
// on every attempt: the library posts its own Provisioning event before.
func (p *Provisioner) leaveToPopulator(claim *v1.PersistentVolumeClaim) error {
	ds := provisionstate.DataSourceOf(claim)
	if ds == nil || !isPopulated(ds) {
		return nil
	}
	if err := p.crossNamespaceAllowed(claim, ds); err != nil {
		return err
	}
	p.opts.EventRecorder.Event(claim, v1.EventTypeNormal, "Provisioning", populatorMessage)
	return &controller.IgnoredError{Reason: fmt.Sprintf("data source (%s) is not handled by the provisioner, assuming an external populator will provision it", ds.Kind)}
}

// contentSource checks the claim's data source and returns the CSI content
// source that names it, with the source claim of a clone or the snapshot of
// a restore; className is the claim's StorageClass, which a refusal may
// name. It never returns a volume that would be silently empty: every
// refusal is an error. Whether the source is being deleted is Provision's
// to check.
func (p *Provisioner) contentSource(ctx context.Context, claim *v1.PersistentVolumeClaim, className string) (*csi.VolumeContentSource, sources, error) {
	ds := provisionstate.DataSourceOf(claim)
	switch {
	case ds == nil:
		return nil, sources{}, nil
	case isPopulated(ds):
		// Provision left it to its populator already.
		return nil, sources{}, &controller.IgnoredError{Reason: fmt.Sprintf("data source kind %q of API group %q is left to its volume populator", ds.Kind, ds.APIGroup)}
	case ds.Kind == provisionstate.SnapshotKind && ds.APIGroup != provisionstate.SnapshotAPIGroup:
		return nil, sources{}, fmt.Errorf("the PVC source does not belong to the right APIGroup. Expected %s, Got %s", provisionstate.SnapshotAPIGroup, ds.APIGroup)
	}
	if err := p.crossNamespaceAllowed(claim, ds); err != nil {
		return nil, sources{}, err
	}
	if ds.IsSnapshot() {
		source, snapshot, err := p.snapshotSource(ctx, claim, ds, className)
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
// returns the CSI content source that names its volume. The refusals are
// upstream's texts (pkg/controller/controller.go: checkDriverCapabilities,
// getPVCSource); where upstream's event leaves out why, the log says it.
func (p *Provisioner) cloneSource(ctx context.Context, claim *v1.PersistentVolumeClaim, ds *provisionstate.DataSource) (*csi.VolumeContentSource, *v1.PersistentVolumeClaim, error) {
	if !p.opts.ControllerCapabilities[csi.ControllerServiceCapability_RPC_CLONE_VOLUME] {
		return nil, nil, errors.New("CSI driver does not support clone operations: controller CLONE_VOLUME capability is not reported")
	}

	source, err := p.opts.ClaimLister.PersistentVolumeClaims(ds.Namespace).Get(ds.Name)
	if err != nil {
		return nil, nil, sourceError(ds, fmt.Errorf("error getting PVC %s (namespace %q) from api server: %w", ds.Name, claim.Namespace, err))
	}
	if source.Status.Phase != v1.ClaimBound {
		return nil, nil, sourceError(ds, fmt.Errorf("the PVC DataSource %s must have a status of Bound.  Got %v", ds.Name, source.Status))
	}
	// Any StorageClass will do, as upstream allows: what matters is that the
	// source's volume is this driver's, checked on its PV below.
	if source.Spec.StorageClassName == nil {
		return nil, nil, sourceError(ds, fmt.Errorf("the source PVC (%s) storageclass cannot be empty", source.Name))
	}
	// Upstream's size rule: the clone's request against the source's
	// request. A driver that gives the clone less than its source holds
	// answers with a smaller volume than asked for, which is refused later.
	sourceSize := source.Spec.Resources.Requests[v1.ResourceStorage]
	requested := claim.Spec.Resources.Requests[v1.ResourceStorage]
	if requested.Cmp(sourceSize) < 0 {
		return nil, nil, sourceError(ds, fmt.Errorf("error, new PVC request must be greater than or equal in size to the specified PVC data source, requested %v but source is %v", requested.Value(), sourceSize.Value()))
	}
	if source.Spec.VolumeName == "" {
		return nil, nil, sourceError(ds, fmt.Errorf("volume name is empty in source PVC %s", source.Name))
	}

	invalid := func(why string, keysAndValues ...any) error {
		klog.FromContext(ctx).Info("Data source claim cannot be cloned: "+why, append([]any{"source", klog.KObj(source), "PV", source.Spec.VolumeName}, keysAndValues...)...)
		return sourceError(ds, errors.New("claim in dataSource not bound or invalid"))
	}
	volume, err := p.opts.VolumeLister.Get(source.Spec.VolumeName)
	if err != nil {
		return nil, nil, invalid("its PV cannot be read", "err", err)
	}
	// An in-tree source of the plugin the driver replaces is its volume too.
	if volume, _, err = p.csiVolume(ctx, volume); err != nil {
		return nil, nil, invalid("its PV cannot be translated to CSI", "err", err)
	}
	switch ref := volume.Spec.ClaimRef; {
	case volume.Spec.CSI == nil || volume.Spec.CSI.Driver != p.opts.DriverName:
		return nil, nil, invalid("its PV is not a volume of this driver")
	case ref == nil || ref.UID != source.UID || ref.Namespace != source.Namespace || ref.Name != source.Name:
		// Unlike upstream, the PV's phase is not asked: the replay of an
		// earlier call must find the source while it is being released.
		return nil, nil, invalid("its PV is not bound to it")
	}
	switch sourceBlock := volume.Spec.VolumeMode != nil && *volume.Spec.VolumeMode == v1.PersistentVolumeBlock; {
	case sourceBlock && !isBlock(claim):
		return nil, nil, sourceError(ds, errors.New("the source PVC and destination PVCs must have the same volume mode for cloning.  Source is Block, but new PVC requested Filesystem"))
	case !sourceBlock && isBlock(claim):
		return nil, nil, sourceError(ds, errors.New("the source PVC and destination PVCs must have the same volume mode for cloning.  Source is Filesystem, but new PVC requested Block"))
	}
	return &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Volume{
		Volume: &csi.VolumeContentSource_VolumeSource{VolumeId: volume.Spec.CSI.VolumeHandle},
	}}, source, nil
}

// cloneSourceDeleted is upstream's refusal of a source claim being deleted.
func cloneSourceDeleted(source *v1.PersistentVolumeClaim) error {
	ds := &provisionstate.DataSource{Kind: "PersistentVolumeClaim", Name: source.Name}
	return sourceError(ds, fmt.Errorf("the PVC DataSource %s is currently being deleted", source.Name))
}
