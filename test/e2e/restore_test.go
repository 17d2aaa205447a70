//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const (
	snapshotSourceProtection = "provisioner.storage.kubernetes.io/volumesnapshot-as-source-protection"
	// restoreCreateDelay keeps a restore pending long enough to act on its
	// snapshot meanwhile.
	restoreCreateDelay = 3 * time.Second
)

// startRestoreStack starts a stack with the real snapshot-controller and
// csi-snapshotter, a class "mock", a Bound claim "golden" and a ready
// snapshot "golden-snap" of it; it returns golden's PV and the snapshot.
func startRestoreStack(t *testing.T, opts framework.StackOptions) (context.Context, *framework.Stack, *corev1.PersistentVolume, *snapv1.VolumeSnapshot) {
	t.Helper()
	opts.Snapshots.Enabled = true
	ctx, s := startStack(t, opts)
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "golden", "mock")
	_, pv := waitForClaimBound(ctx, t, s, "default", "golden")
	if err := s.CreateSnapshot(ctx, "default", "golden-snap", "golden"); err != nil {
		t.Fatalf("snapshot golden: %v", err)
	}
	snap, err := s.WaitSnapshotReady(ctx, "default", "golden-snap")
	if err != nil {
		t.Fatal(err)
	}
	return ctx, s, pv, snap
}

// restoredFrom makes the claim a restore of a snapshot in its namespace.
func restoredFrom(snapshot string) func(*corev1.PersistentVolumeClaim) {
	return func(pvc *corev1.PersistentVolumeClaim) {
		pvc.Spec.DataSource = &corev1.TypedLocalObjectReference{APIGroup: ptr.To("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: snapshot}
	}
}

// A claim restored from a snapshot gets a volume the driver made from that
// snapshot, holding the data of the snapshotted volume; the snapshot is
// protected while the restore runs and released once it is Bound.
func TestRestoreCarriesTheSnapshotsData(t *testing.T) {
	ctx, s, goldenPV, _ := startRestoreStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{CreateDelay: restoreCreateDelay},
	})
	handle, err := s.SnapshotHandle(ctx, "default", "golden-snap")
	if err != nil {
		t.Fatal(err)
	}

	createClaim(ctx, t, s, "default", "restored", "mock", restoredFrom("golden-snap"))
	waitForSnapshotFinalizer(ctx, t, s, "golden-snap", true)
	_, pv := waitForClaimBound(ctx, t, s, "default", "restored")

	vols := driverVolumes(t, s)
	restored, ok := volumeByID(vols, pv.Spec.CSI.VolumeHandle)
	if !ok {
		t.Fatalf("driver has no volume %s", pv.Spec.CSI.VolumeHandle)
	}
	golden, _ := volumeByID(vols, goldenPV.Spec.CSI.VolumeHandle)
	if restored.SourceSnapshotID != handle {
		t.Errorf("restored volume was made from snapshot %q, want %s", restored.SourceSnapshotID, handle)
	}
	if restored.DataID == "" || restored.DataID != golden.DataID {
		t.Errorf("restored volume holds data %q, want golden's %q", restored.DataID, golden.DataID)
	}
	waitForSnapshotFinalizer(ctx, t, s, "golden-snap", false)
}

// Restores the driver could only get wrong are refused before CreateVolume,
// each with an event that says why.
func TestRestoreRefusals(t *testing.T) {
	ctx, s, _, _ := startRestoreStack(t, framework.StackOptions{})
	cases := []struct {
		name   string
		mutate func(*corev1.PersistentVolumeClaim)
		want   string
	}{
		{"too-small", func(pvc *corev1.PersistentVolumeClaim) {
			pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("512Mi")
		}, "is less than the size"},
		{"block-from-filesystem", blockMode, "snapshot.storage.kubernetes.io/allow-volume-mode-change"},
	}
	before := len(driverVolumes(t, s))
	for _, tc := range cases {
		createClaim(ctx, t, s, "default", tc.name, "mock", restoredFrom("golden-snap"), tc.mutate)
	}
	for _, tc := range cases {
		ev := waitForClaimEvent(ctx, t, s, "default", tc.name, corev1.EventTypeWarning, "ProvisioningFailed")
		if !strings.Contains(ev.Message, tc.want) {
			t.Errorf("claim %s: event %q does not say %q", tc.name, ev.Message, tc.want)
		}
	}
	if after := len(driverVolumes(t, s)); after != before {
		t.Errorf("the driver has %d volumes, had %d: a refused restore made one", after, before)
	}
}

// Deleting a snapshot while a volume is restored from it waits for the
// restore; then the snapshot goes, and the restored volume stays.
func TestDeletedSnapshotWaitsForTheRestore(t *testing.T) {
	ctx, s, _, _ := startRestoreStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{CreateDelay: restoreCreateDelay},
	})
	createClaim(ctx, t, s, "default", "restored", "mock", restoredFrom("golden-snap"))
	waitForSnapshotFinalizer(ctx, t, s, "golden-snap", true)
	if err := s.SnapshotClient().SnapshotV1().VolumeSnapshots("default").Delete(ctx, "golden-snap", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if pvc := getClaim(ctx, t, s, "default", "restored"); pvc.Status.Phase != corev1.ClaimPending {
		t.Fatalf("restore is %s when its snapshot was deleted, want Pending: the driver's %s delay should still run", pvc.Status.Phase, restoreCreateDelay)
	}
	_, pv := waitForClaimBound(ctx, t, s, "default", "restored")
	waitFor(ctx, t, s, "the deleted snapshot to go once the restore is Bound", func(ctx context.Context) (bool, error) {
		_, err := s.SnapshotClient().SnapshotV1().VolumeSnapshots("default").Get(ctx, "golden-snap", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if _, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle); !ok {
		t.Errorf("the restored volume %s is gone with its snapshot", pv.Spec.CSI.VolumeHandle)
	}
}

// waitForSnapshotFinalizer waits until the snapshot carries the
// source-protection finalizer (want) or no longer does.
func waitForSnapshotFinalizer(ctx context.Context, t *testing.T, s *framework.Stack, name string, want bool) {
	t.Helper()
	what := fmt.Sprintf("snapshot %s to carry %s", name, snapshotSourceProtection)
	if !want {
		what = fmt.Sprintf("%s to leave snapshot %s", snapshotSourceProtection, name)
	}
	waitFor(ctx, t, s, what, func(ctx context.Context) (bool, error) {
		snap, err := s.SnapshotClient().SnapshotV1().VolumeSnapshots("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return slices.Contains(snap.Finalizers, snapshotSourceProtection) == want, fmt.Errorf("finalizers %v", snap.Finalizers)
	})
}
