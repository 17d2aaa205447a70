//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// cloneCreateDelay slows every CreateVolume so that a clone stays pending
// long enough to look at its source in between; the sidecar's --timeout
// (30s) is far longer, so the delay never causes a retry.
const cloneCreateDelay = 4 * time.Second

// startCloneStack starts a slow driver with a class and a bound source claim
// "source", and returns the source's PV.
func startCloneStack(t *testing.T) (context.Context, *framework.Stack, *corev1.PersistentVolume) {
	t.Helper()
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{CreateDelay: cloneCreateDelay},
	})
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "source", "mock")
	_, pv := waitForClaimBound(ctx, t, s, "default", "source")
	return ctx, s, pv
}

// A clone puts the cloning-protection finalizer on its source before the
// driver copies it, and the finalizer goes once the clone is provisioned;
// the source itself is left alone.
func TestCloneProtectsItsSourceUntilProvisioned(t *testing.T) {
	ctx, s, sourcePV := startCloneStack(t)
	createClaim(ctx, t, s, "default", "clone", "mock", clonedFrom("source"))

	waitForSourceProtected(ctx, t, s)
	if clone := getClaim(ctx, t, s, "default", "clone"); clone.Status.Phase != corev1.ClaimPending {
		t.Fatalf("clone is %s when its source got the finalizer, want Pending: the driver's %s delay should still run", clone.Status.Phase, cloneCreateDelay)
	}

	_, clonePV := waitForClaimBound(ctx, t, s, "default", "clone")
	vol, ok := volumeByID(driverVolumes(t, s), clonePV.Spec.CSI.VolumeHandle)
	if !ok {
		t.Fatalf("driver has no volume %s", clonePV.Spec.CSI.VolumeHandle)
	}
	if vol.SourceVolumeID != sourcePV.Spec.CSI.VolumeHandle {
		t.Errorf("clone volume was copied from %q, want the source's %s", vol.SourceVolumeID, sourcePV.Spec.CSI.VolumeHandle)
	}

	waitFor(ctx, t, s, "the cloning-protection finalizer to leave the source", func(ctx context.Context) (bool, error) {
		src, err := s.Client().CoreV1().PersistentVolumeClaims("default").Get(ctx, "source", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return !slices.Contains(src.Finalizers, cloningProtection), fmt.Errorf("finalizers %v", src.Finalizers)
	})
	if src := getClaim(ctx, t, s, "default", "source"); src.DeletionTimestamp != nil || src.Status.Phase != corev1.ClaimBound {
		t.Errorf("source is %s, deletion timestamp %v after cloning; want it Bound and untouched", src.Status.Phase, src.DeletionTimestamp)
	}
}

// Deleting the source of a pending clone leaves it Terminating until the
// clone is provisioned; then it goes, with its volume, and the clone's
// volume stays.
func TestDeletedSourceWaitsForPendingClone(t *testing.T) {
	ctx, s, sourcePV := startCloneStack(t)
	createClaim(ctx, t, s, "default", "clone", "mock", clonedFrom("source"))
	waitForSourceProtected(ctx, t, s)

	deleteClaim(ctx, t, s, "default", "source")
	src := getClaim(ctx, t, s, "default", "source")
	if src.DeletionTimestamp == nil {
		t.Fatalf("source has no deletion timestamp after its deletion")
	}
	if clone := getClaim(ctx, t, s, "default", "clone"); clone.Status.Phase != corev1.ClaimPending {
		t.Fatalf("clone is %s right after the source's deletion, want Pending: the driver's %s delay should still run", clone.Status.Phase, cloneCreateDelay)
	}

	// Until the clone is Bound, the source must still be there.
	var lostSource error
	waitFor(ctx, t, s, "the clone to be Bound", func(ctx context.Context) (bool, error) {
		clone, err := s.Client().CoreV1().PersistentVolumeClaims("default").Get(ctx, "clone", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if clone.Status.Phase == corev1.ClaimBound {
			return true, nil
		}
		_, err = s.Client().CoreV1().PersistentVolumeClaims("default").Get(ctx, "source", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			lostSource = errors.New("the source claim was deleted while its clone was still " + string(clone.Status.Phase))
			return true, nil
		}
		return false, fmt.Errorf("clone %s", clone.Status.Phase)
	})
	if lostSource != nil {
		t.Fatal(lostSource)
	}

	waitForClaimGone(ctx, t, s, "default", "source")
	waitForPVGone(ctx, t, s, sourcePV.Name)
	_, clonePV := waitForClaimBound(ctx, t, s, "default", "clone")
	vols := waitForDriverVolumes(ctx, t, s, 1)
	if vols[0].ID != clonePV.Spec.CSI.VolumeHandle || vols[0].SourceVolumeID != sourcePV.Spec.CSI.VolumeHandle {
		t.Errorf("driver holds %s (copied from %q), want the clone's %s copied from %s",
			vols[0].ID, vols[0].SourceVolumeID, clonePV.Spec.CSI.VolumeHandle, sourcePV.Spec.CSI.VolumeHandle)
	}
}

// waitForSourceProtected waits until the source claim carries the
// cloning-protection finalizer.
func waitForSourceProtected(ctx context.Context, t *testing.T, s *framework.Stack) {
	t.Helper()
	waitFor(ctx, t, s, "the source to carry "+cloningProtection, func(ctx context.Context) (bool, error) {
		src, err := s.Client().CoreV1().PersistentVolumeClaims("default").Get(ctx, "source", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return slices.Contains(src.Finalizers, cloningProtection), fmt.Errorf("finalizers %v", src.Finalizers)
	})
}

// As upstream, a clone may use another StorageClass of the same driver: the
// driver copies the source with the clone's class parameters.
func TestCloneIntoAnotherStorageClassOfTheDriver(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{})
	createStorageClass(ctx, t, s, "mock")
	createStorageClass(ctx, t, s, "mock-fast", func(sc *storagev1.StorageClass) {
		sc.Parameters = map[string]string{"tier": "fast"}
	})
	createClaim(ctx, t, s, "default", "source", "mock")
	_, sourcePV := waitForClaimBound(ctx, t, s, "default", "source")

	createClaim(ctx, t, s, "default", "fast-copy", "mock-fast", clonedFrom("source"))
	_, clonePV := waitForClaimBound(ctx, t, s, "default", "fast-copy")
	vol, ok := volumeByID(driverVolumes(t, s), clonePV.Spec.CSI.VolumeHandle)
	if !ok {
		t.Fatalf("driver has no volume %s", clonePV.Spec.CSI.VolumeHandle)
	}
	if vol.SourceVolumeID != sourcePV.Spec.CSI.VolumeHandle {
		t.Errorf("clone volume was copied from %q, want the source's %s", vol.SourceVolumeID, sourcePV.Spec.CSI.VolumeHandle)
	}
	if vol.Parameters["tier"] != "fast" {
		t.Errorf("clone volume parameters %v, want the clone's class parameters", vol.Parameters)
	}
	if clonePV.Spec.StorageClassName != "mock-fast" {
		t.Errorf("clone PV class %q, want mock-fast", clonePV.Spec.StorageClassName)
	}
}
