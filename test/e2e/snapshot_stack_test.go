//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// With snapshots enabled, the stack serves the snapshot API, has a
// VolumeSnapshotClass of the mock driver, and runs snapshot-controller and
// csi-snapshotter next to the sidecar.
func TestSnapshotStackStarts(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{Snapshots: framework.SnapshotOptions{Enabled: true}})

	if err := framework.SnapshotCRDsEstablished(ctx, s.Cluster().RESTConfig()); err != nil {
		t.Errorf("snapshot CRDs: %v", err)
	}
	class, err := s.SnapshotClient().SnapshotV1().VolumeSnapshotClasses().Get(ctx, s.SnapshotClassName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get VolumeSnapshotClass %q: %v", s.SnapshotClassName(), err)
	}
	if class.Driver != s.DriverName() || class.DeletionPolicy != snapv1.VolumeSnapshotContentDelete {
		t.Errorf("VolumeSnapshotClass %s has driver %q, deletionPolicy %q; want %q, Delete", class.Name, class.Driver, class.DeletionPolicy, s.DriverName())
	}
	for _, p := range []*framework.Process{s.SnapshotController(), s.Snapshotter()} {
		if p == nil {
			t.Fatal("the stack started no snapshot-controller or csi-snapshotter")
		}
	}
	// Both started their controllers before StartStack returned; what is
	// left to see is that neither exited since, e.g. on a refused watch.
	if err := s.CheckAlive(); err != nil {
		t.Error(err)
	}
}

// A VolumeSnapshot of a claim the sidecar provisioned is cut by the real
// snapshot-controller and csi-snapshotter: it becomes ReadyToUse, and its
// content's snapshotHandle is a snapshot the driver took of the claim's
// volume. Deleting it (class deletionPolicy Delete) deletes the driver's
// snapshot.
func TestSnapshotOfProvisionedClaimIsReady(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{Snapshots: framework.SnapshotOptions{Enabled: true}})
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "data", "mock")
	_, pv := waitForClaimBound(ctx, t, s, "default", "data")

	if err := s.CreateSnapshot(ctx, "default", "data-snap", "data"); err != nil {
		t.Fatal(err)
	}
	snap, err := s.WaitSnapshotReady(ctx, "default", "data-snap")
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Status.RestoreSize; got == nil || got.Cmp(resource.MustParse("1Gi")) != 0 {
		t.Errorf("snapshot restoreSize %v, want 1Gi", got)
	}
	content, err := s.BoundSnapshotContent(ctx, "default", "data-snap")
	if err != nil {
		t.Fatal(err)
	}
	if content.Spec.Driver != s.DriverName() || content.Spec.DeletionPolicy != snapv1.VolumeSnapshotContentDelete {
		t.Errorf("content %s has driver %q, deletionPolicy %q; want %q, Delete", content.Name, content.Spec.Driver, content.Spec.DeletionPolicy, s.DriverName())
	}
	handle, err := s.SnapshotHandle(ctx, "default", "data-snap")
	if err != nil {
		t.Fatal(err)
	}
	snaps := driverSnapshots(t, s)
	i := slices.IndexFunc(snaps, func(sn mockdriver.Snapshot) bool { return sn.ID == handle })
	if i < 0 {
		t.Fatalf("the driver has no snapshot %s: %+v", handle, snaps)
	}
	if got := snaps[i].SourceVolumeID; got != pv.Spec.CSI.VolumeHandle {
		t.Errorf("driver snapshot %s is of volume %s, want the claim's %s", handle, got, pv.Spec.CSI.VolumeHandle)
	}

	if err := s.SnapshotClient().SnapshotV1().VolumeSnapshots("default").Delete(ctx, "data-snap", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete VolumeSnapshot: %v", err)
	}
	waitFor(ctx, t, s, "the driver to delete snapshot "+handle, func(context.Context) (bool, error) {
		snaps, err := mockdriver.ReadSnapshots(s.StateFile())
		if err != nil {
			return false, err
		}
		return !slices.ContainsFunc(snaps, func(sn mockdriver.Snapshot) bool { return sn.ID == handle }), fmt.Errorf("%d snapshot(s) left", len(snaps))
	})
}

// driverSnapshots returns the snapshots the driver holds, failing the test if
// its state cannot be read.
func driverSnapshots(t *testing.T, s *framework.Stack) []mockdriver.Snapshot {
	t.Helper()
	snaps, err := mockdriver.ReadSnapshots(s.StateFile())
	if err != nil {
		t.Fatalf("read driver state: %v", err)
	}
	return snaps
}
