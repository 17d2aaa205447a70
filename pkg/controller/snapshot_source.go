package controller

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/container-storage-interface/spec/lib/go/csi"
	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// AnnAllowVolumeModeChange on a VolumeSnapshotContent lets claims restore it
// with another volume mode than its source had, when
// --prevent-volume-mode-conversion is on.
const AnnAllowVolumeModeChange = "snapshot.storage.kubernetes.io/allow-volume-mode-change"

// snapshotSource checks that a VolumeSnapshot may be restored into the
// claim of StorageClass className and returns the CSI content source naming
// its snapshot handle. The snapshot and its content are read from the API
// server, as upstream does: a restore is rare next to the cost of caching
// every snapshot. Whether the snapshot is being deleted is Provision's to
// check. The refusals are upstream's texts (pkg/controller/controller.go:
// checkDriverCapabilities, getSnapshotSource).
func (p *Provisioner) snapshotSource(ctx context.Context, claim *v1.PersistentVolumeClaim, ds *provisionstate.DataSource, className string) (*csi.VolumeContentSource, *snapv1.VolumeSnapshot, error) {
	if !p.opts.ControllerCapabilities[csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT] {
		return nil, nil, errors.New("CSI driver does not support snapshot restore: controller CREATE_DELETE_SNAPSHOT capability is not reported")
	}
	if p.opts.SnapshotClient == nil {
		return nil, nil, fmt.Errorf("data source snapshot %s/%s: this provisioner has no VolumeSnapshot client", ds.Namespace, ds.Name)
	}
	logger := klog.FromContext(ctx)
	snapshots := p.opts.SnapshotClient.SnapshotV1()
	snapshot, err := snapshots.VolumeSnapshots(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, sourceError(ds, fmt.Errorf("error getting snapshot %s from api server: %w", ds.Name, err))
	}
	if snapshot.Status == nil || snapshot.Status.BoundVolumeSnapshotContentName == nil || *snapshot.Status.BoundVolumeSnapshotContentName == "" {
		return nil, nil, sourceError(ds, fmt.Errorf("snapshot %s not bound", ds.Name))
	}
	contentName := *snapshot.Status.BoundVolumeSnapshotContentName
	content, err := snapshots.VolumeSnapshotContents().Get(ctx, contentName, metav1.GetOptions{})
	if err != nil {
		// Upstream's event leaves the API error out; the log has it.
		logger.Info("Reading the content of a data source snapshot failed", "snapshot", klog.KObj(snapshot), "content", contentName, "err", err)
		return nil, nil, sourceError(ds, fmt.Errorf("error getting snapshotcontent %s for snapshot %s", contentName, ds.Name))
	}
	if ref := content.Spec.VolumeSnapshotRef; ref.UID != snapshot.UID || ref.Namespace != snapshot.Namespace || ref.Name != snapshot.Name {
		logger.Info("The content of a data source snapshot is bound to another snapshot", "snapshot", klog.KObj(snapshot), "content", contentName, "boundTo", klog.KRef(ref.Namespace, ref.Name))
		return nil, nil, sourceError(ds, fmt.Errorf("snapshotcontent %s for snapshot %s is bound to a different snapshot", contentName, ds.Name))
	}
	if content.Spec.Driver != p.opts.DriverName {
		logger.Info("The content of a data source snapshot is another driver's", "snapshot", klog.KObj(snapshot), "content", contentName, "driver", content.Spec.Driver)
		return nil, nil, sourceError(ds, fmt.Errorf("snapshotcontent %s for snapshot %s is not handled by CSI driver of StorageClass %s", contentName, ds.Name, className))
	}
	if snapshot.Status.ReadyToUse == nil || !*snapshot.Status.ReadyToUse {
		return nil, nil, sourceError(ds, fmt.Errorf("snapshot %s is not Ready", ds.Name))
	}
	if content.Status == nil || content.Status.SnapshotHandle == nil || *content.Status.SnapshotHandle == "" {
		return nil, nil, sourceError(ds, fmt.Errorf("snapshot handle %s is not available", ds.Name))
	}
	if err := restoreSizeFits(claim, snapshot); err != nil {
		return nil, nil, sourceError(ds, err)
	}
	if p.opts.PreventVolumeModeConversion {
		if err := volumeModeKept(claim, content); err != nil {
			return nil, nil, sourceError(ds, err)
		}
	}
	handle := *content.Status.SnapshotHandle
	klog.FromContext(ctx).V(4).Info("Restoring from snapshot", "snapshot", klog.KObj(snapshot), "content", contentName, "handle", handle)
	return &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Snapshot{
		Snapshot: &csi.VolumeContentSource_SnapshotSource{SnapshotId: handle},
	}}, snapshot, nil
}

// restoreSizeFits refuses a claim smaller than the snapshot's restore size:
// the driver could only give it less than the snapshot holds.
func restoreSizeFits(claim *v1.PersistentVolumeClaim, snapshot *snapv1.VolumeSnapshot) error {
	if snapshot.Status.RestoreSize == nil {
		return nil
	}
	requested := claim.Spec.Resources.Requests[v1.ResourceStorage]
	if requested.Cmp(*snapshot.Status.RestoreSize) < 0 {
		return fmt.Errorf("requested volume size %d is less than the size %d for the source snapshot %s", requested.Value(), snapshot.Status.RestoreSize.Value(), snapshot.Name)
	}
	return nil
}

// volumeModeKept refuses a restore that would turn a block volume's data
// into a filesystem volume or back, unless the content's annotation allows
// it: reading a raw device as a filesystem can crash a node's kernel.
func volumeModeKept(claim *v1.PersistentVolumeClaim, content *snapv1.VolumeSnapshotContent) error {
	source, wanted := content.Spec.SourceVolumeMode, claim.Spec.VolumeMode
	if source == nil || wanted == nil || *source == *wanted {
		return nil
	}
	const refused = "requested volume %s/%s modifies the mode of the source volume but does not have permission to do so. "
	value, ok := content.Annotations[AnnAllowVolumeModeChange]
	if !ok {
		return fmt.Errorf(refused+"%s annotation is not present on snapshotcontent %s", claim.Namespace, claim.Name, AnnAllowVolumeModeChange, content.Name)
	}
	allowed, err := strconv.ParseBool(value)
	if err != nil {
		return fmt.Errorf(refused+"failed to convert %s annotation value to boolean with error: %v", claim.Namespace, claim.Name, AnnAllowVolumeModeChange, err)
	}
	if !allowed {
		return fmt.Errorf(refused+"%s is set to false on snapshotcontent %s", claim.Namespace, claim.Name, AnnAllowVolumeModeChange, content.Name)
	}
	return nil
}

// sourceError words a data source that cannot be used as upstream does
// (pkg/controller/controller.go, prepareProvision).
func sourceError(ds *provisionstate.DataSource, err error) error {
	return fmt.Errorf("error getting handle for DataSource Type %s by Name %s: %w", ds.Kind, ds.Name, err)
}
