package controller

import (
	"context"
	"fmt"
	"strconv"

	"github.com/container-storage-interface/spec/lib/go/csi"
	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/provisioning"
)

// AnnAllowVolumeModeChange on a VolumeSnapshotContent lets claims restore it
// with another volume mode than its source had, when
// --prevent-volume-mode-conversion is on.
const AnnAllowVolumeModeChange = "snapshot.storage.kubernetes.io/allow-volume-mode-change"

// snapshotSource checks that a VolumeSnapshot may be restored into the
// claim and returns the CSI content source naming its snapshot handle. The
// snapshot and its content are read from the API server, as upstream does:
// a restore is rare next to the cost of caching every snapshot. Whether the
// snapshot is being deleted is Provision's to check.
func (p *Provisioner) snapshotSource(ctx context.Context, claim *v1.PersistentVolumeClaim, ds *provisioning.DataSource) (*csi.VolumeContentSource, *snapv1.VolumeSnapshot, error) {
	if !p.opts.ControllerCapabilities[csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT] {
		return nil, nil, fmt.Errorf("data source snapshot %s/%s: driver %s does not support snapshot restore: it does not report the CREATE_DELETE_SNAPSHOT capability", ds.Namespace, ds.Name, p.opts.DriverName)
	}
	if p.opts.SnapshotClient == nil {
		return nil, nil, fmt.Errorf("data source snapshot %s/%s: this provisioner has no VolumeSnapshot client", ds.Namespace, ds.Name)
	}
	snapshots := p.opts.SnapshotClient.SnapshotV1()
	snapshot, err := snapshots.VolumeSnapshots(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("data source snapshot %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	if snapshot.Status == nil || snapshot.Status.BoundVolumeSnapshotContentName == nil || *snapshot.Status.BoundVolumeSnapshotContentName == "" {
		return nil, nil, fmt.Errorf("data source snapshot %s/%s is not bound to a VolumeSnapshotContent", ds.Namespace, ds.Name)
	}
	contentName := *snapshot.Status.BoundVolumeSnapshotContentName
	content, err := snapshots.VolumeSnapshotContents().Get(ctx, contentName, metav1.GetOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("VolumeSnapshotContent %s of data source snapshot %s/%s: %w", contentName, ds.Namespace, ds.Name, err)
	}
	if ref := content.Spec.VolumeSnapshotRef; ref.UID != snapshot.UID || ref.Namespace != snapshot.Namespace || ref.Name != snapshot.Name {
		return nil, nil, fmt.Errorf("VolumeSnapshotContent %s of data source snapshot %s/%s is bound to another snapshot (%s/%s)", contentName, ds.Namespace, ds.Name, ref.Namespace, ref.Name)
	}
	if content.Spec.Driver != p.opts.DriverName {
		return nil, nil, fmt.Errorf("VolumeSnapshotContent %s of data source snapshot %s/%s belongs to driver %q, not %s", contentName, ds.Namespace, ds.Name, content.Spec.Driver, p.opts.DriverName)
	}
	if snapshot.Status.ReadyToUse == nil || !*snapshot.Status.ReadyToUse {
		return nil, nil, fmt.Errorf("data source snapshot %s/%s is not ready to use", ds.Namespace, ds.Name)
	}
	if content.Status == nil || content.Status.SnapshotHandle == nil || *content.Status.SnapshotHandle == "" {
		return nil, nil, fmt.Errorf("VolumeSnapshotContent %s of data source snapshot %s/%s has no snapshot handle", contentName, ds.Namespace, ds.Name)
	}
	if err := restoreSizeFits(claim, snapshot); err != nil {
		return nil, nil, err
	}
	if p.opts.PreventVolumeModeConversion {
		if err := volumeModeKept(claim, content); err != nil {
			return nil, nil, err
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
		return fmt.Errorf("requested size %s is smaller than the restore size %s of data source snapshot %s/%s", requested.String(), snapshot.Status.RestoreSize.String(), snapshot.Namespace, snapshot.Name)
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
	value, ok := content.Annotations[AnnAllowVolumeModeChange]
	if !ok {
		return fmt.Errorf("claim asks for volume mode %s but data source snapshot content %s was taken from a %s volume, and has no %s annotation", *wanted, content.Name, *source, AnnAllowVolumeModeChange)
	}
	allowed, err := strconv.ParseBool(value)
	if err != nil {
		return fmt.Errorf("claim asks for volume mode %s but data source snapshot content %s was taken from a %s volume: annotation %s=%q is not a boolean", *wanted, content.Name, *source, AnnAllowVolumeModeChange, value)
	}
	if !allowed {
		return fmt.Errorf("claim asks for volume mode %s but data source snapshot content %s was taken from a %s volume, and %s is false", *wanted, content.Name, *source, AnnAllowVolumeModeChange)
	}
	return nil
}
