package controller

import (
	"context"
	"fmt"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// ReasonSnapshotSourceUnprotected is the warning on a claim restored from a
// VolumeSnapshot that the provisioner could not protect from deletion
// (RBAC without update on volumesnapshots, as upstream v5's): the restore
// goes on, as upstream's does.
const ReasonSnapshotSourceUnprotected = "SnapshotSourceUnprotected"

// restorableWhileDeleted refuses to start restoring from a snapshot whose
// deletion has begun, unless the source-protection finalizer holds it: then
// an earlier attempt may have started a CreateVolume, and only going on
// (and the claim's deletion, if it comes) settles that volume.
func restorableWhileDeleted(snapshot *snapv1.VolumeSnapshot) error {
	if snapshot == nil || snapshot.DeletionTimestamp == nil || finalizer.Has(snapshot, provisionstate.SnapshotSourceProtectionFinalizer) {
		return nil
	}
	// Upstream's text (pkg/controller/controller.go, getSnapshotSource).
	return fmt.Errorf("error getting handle for DataSource Type %s by Name %s: snapshot %s is being deleted", provisionstate.SnapshotKind, snapshot.Name, snapshot.Name)
}

// protectSnapshotSource puts the source-protection finalizer on the
// snapshot a claim is restored from, before CreateVolume; the snapshot
// protection controller removes it once no provisioning reads the snapshot.
func (p *Provisioner) protectSnapshotSource(ctx context.Context, claim *v1.PersistentVolumeClaim, snapshot *snapv1.VolumeSnapshot) error {
	if finalizer.Has(snapshot, provisionstate.SnapshotSourceProtectionFinalizer) || snapshot.DeletionTimestamp != nil {
		// No finalizer can be added to an object being deleted; one that
		// holds it was checked by restorableWhileDeleted.
		return nil
	}
	if !p.opts.ProtectSnapshotSources {
		p.opts.EventRecorder.Eventf(claim, v1.EventTypeWarning, ReasonSnapshotSourceUnprotected,
			"Restoring from snapshot %s/%s without protecting it from deletion: this provisioner cannot watch and update VolumeSnapshots (see its start-up log)", snapshot.Namespace, snapshot.Name)
		return nil
	}
	to := finalizer.VolumeSnapshots(p.opts.SnapshotClient)
	wrote, err := finalizer.Add(ctx, to, snapshot, provisionstate.SnapshotSourceProtectionFinalizer)
	if apierrors.IsConflict(err) {
		// The snapshot controller writes snapshots too: read it again once.
		var live *snapv1.VolumeSnapshot
		live, err = p.opts.SnapshotClient.SnapshotV1().VolumeSnapshots(snapshot.Namespace).Get(ctx, snapshot.Name, metav1.GetOptions{})
		switch {
		case err != nil:
		case live.UID != snapshot.UID:
			return fmt.Errorf("data source snapshot %s/%s was replaced by a new snapshot", snapshot.Namespace, snapshot.Name)
		case live.DeletionTimestamp != nil:
			return restorableWhileDeleted(live)
		default:
			wrote, err = finalizer.Add(ctx, to, live, provisionstate.SnapshotSourceProtectionFinalizer)
		}
	}
	if apierrors.IsForbidden(err) {
		p.opts.EventRecorder.Eventf(claim, v1.EventTypeWarning, ReasonSnapshotSourceUnprotected,
			"Restoring from snapshot %s/%s without protecting it from deletion: %v", snapshot.Namespace, snapshot.Name, err)
		klog.FromContext(ctx).Info("Restoring from an unprotected snapshot", "snapshot", klog.KObj(snapshot), "err", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("adding the source-protection finalizer to data source snapshot before CreateVolume: %w", err)
	}
	if wrote {
		klog.FromContext(ctx).V(4).Info("Added source-protection finalizer to snapshot", "snapshot", klog.KObj(snapshot))
	}
	return nil
}
