//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Names and reasons of provisioning protection, spelled out as users see
// them rather than imported from pkg/controller.
const (
	provisioningProtection = "provisioner.storage.kubernetes.io/provisioning-protection"
	reasonDeletionHeld     = "DeletionHeldForProvisioning"
	reasonDeletionReleased = "DeletionReleasedByProvisioning"
	reasonAbandonedVolume  = "AbandonedVolumeDeleted"
	// abandonedVolume is recorded on a claim deleted during provisioning:
	// the handle of the volume found for it, before that volume is deleted.
	abandonedVolume = "provisioner.storage.kubernetes.io/abandoned-volume"
)

// A claim deleted while its CreateVolume runs is not let go: it stays
// Terminating with the finalizer, and the hold is announced, until the
// volume the backend was making exists and is in hands that will delete it.
// In the end nothing is left: no claim, no PV, no volume.
func TestDeletedClaimIsHeldWhileCreateVolumeRuns(t *testing.T) {
	const createDelay = 4 * time.Second
	ctx, s, metricsURL, volume := startSlowBackendClaim(t, createDelay, "held")

	waitForCreateVolumeReceived(ctx, t, s, volume)
	if got := getClaim(ctx, t, s, "default", "held"); !hasFinalizer(got, provisioningProtection) {
		t.Fatalf("CreateVolume was sent for a claim without the %s finalizer: %v", provisioningProtection, got.Finalizers)
	}
	deleteClaim(ctx, t, s, "default", "held")

	requireHeld(ctx, t, s, "default", "held", "deleted while CreateVolume runs")
	waitForClaimEvent(ctx, t, s, "default", "held", corev1.EventTypeNormal, reasonDeletionHeld)
	waitForMetric(ctx, t, s, metricsURL, metricHeldClaims, "= 1", equals(1))

	// The claim must outlive the creation it was deleted during: once the
	// driver has made the volume, the claim is still there to be undone.
	waitFor(ctx, t, s, "the backend to create "+volume+" while the claim is held", func(ctx context.Context) (bool, error) {
		got, err := s.Client().CoreV1().PersistentVolumeClaims("default").Get(ctx, "held", metav1.GetOptions{})
		gone := apierrors.IsNotFound(err)
		if err != nil && !gone {
			return false, err
		}
		st, err := s.DriverState()
		if err != nil {
			return false, err
		}
		created := wasDeleted(st, volume) || slices.ContainsFunc(st.Volumes, func(v mockdriver.Volume) bool { return v.Name == volume })
		switch {
		case created:
			return true, nil
		case gone:
			// Checked before the driver: the claim left while the
			// backend was still making its volume.
			t.Fatalf("the claim was let go while CreateVolume for %s was still running", volume)
		case !isTerminating(got) || !hasFinalizer(got, provisioningProtection):
			t.Fatalf("the claim lost its hold while CreateVolume ran: deletionTimestamp %v, finalizers %v", got.DeletionTimestamp, got.Finalizers)
		}
		return false, fmt.Errorf("no volume %s yet; claim Terminating with %v", volume, got.Finalizers)
	})

	waitForClaimGone(ctx, t, s, "default", "held")
	waitForClaimEvent(ctx, t, s, "default", "held", corev1.EventTypeNormal, reasonDeletionReleased)
	waitForDriverVolumes(ctx, t, s, 0)
	waitFor(ctx, t, s, "no PV to remain", func(ctx context.Context) (bool, error) {
		list, err := s.Client().CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return len(list.Items) == 0, fmt.Errorf("%d PV(s) left", len(list.Items))
	})
	st, err := s.DriverState()
	if err != nil {
		t.Fatal(err)
	}
	if !wasDeleted(st, volume) {
		t.Errorf("the driver never deleted %s: the hold protected nothing", volume)
	}
	if ids := backendVolumeIDs(st)[volume]; len(ids) != 1 {
		t.Errorf("the backend made %d volumes named %s, want 1", len(ids), volume)
	}
	waitForMetric(ctx, t, s, metricsURL, metricHeldClaims, "= 0", equals(0))
	waitForMetric(ctx, t, s, metricsURL, metricFinalizersAdded, ">= 1", atLeast(1))
	waitForMetric(ctx, t, s, metricsURL, metricFinalizersRemoved, ">= 1", atLeast(1))
}

// A sidecar that dies (SIGKILL) while its CreateVolume runs leaves the
// backend creating a volume nobody will record. The claim, deleted while no
// sidecar runs, stays Terminating behind the finalizer; the restarted
// sidecar finds it, finds the volume by name, deletes it and lets the claim
// go. Zero volumes are left.
func TestRestartedSidecarDeletesVolumeOfClaimDeletedWhileItWasDown(t *testing.T) {
	const createDelay = 3 * time.Second
	ctx, s, metricsURL, volume := startSlowBackendClaim(t, createDelay, "orphaned")

	waitForCreateVolumeReceived(ctx, t, s, volume)
	if err := s.Sidecar().Kill(); err != nil {
		t.Fatalf("kill the sidecar: %v", err)
	}
	deleteClaim(ctx, t, s, "default", "orphaned")

	// The backend finishes the call its dead caller made.
	vols := waitForDriverVolumes(ctx, t, s, 1)
	if vols[0].Name != volume {
		t.Fatalf("the backend created %s, want %s", vols[0].Name, volume)
	}
	requireHeld(ctx, t, s, "default", "orphaned", "deleted while no sidecar runs")

	if err := s.Sidecar().Restart(ctx); err != nil {
		t.Fatalf("restart the sidecar: %v", err)
	}
	waitForAbandonedVolumeDeleted(ctx, t, s, "default", "orphaned", vols[0])
	waitForClaimEvent(ctx, t, s, "default", "orphaned", corev1.EventTypeNormal, reasonDeletionReleased)
	waitForMetric(ctx, t, s, metricsURL, metricAbandonedDeleted, "= 1", equals(1))
}

// A sidecar killed (SIGKILL) right after the driver deleted the volume it
// found for a claim deleted during provisioning, before it let the claim go,
// leaves the claim Terminating, held, with the handle of that volume
// recorded on it. The next sidecar deletes that handle, which is already
// gone, and lets the claim go; it never looks for the volume by name again,
// which would have the backend make a second one. One backend volume was
// ever made for the claim, and none is left.
func TestKillDuringUndoDoesNotRecreateTheVolume(t *testing.T) {
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{
			CreateDelay: 3 * time.Second,
			// Time to stop the sidecar that sent the DeleteVolume before
			// the reply reaches it.
			DeleteDelay:          time.Second,
			CreateOutlivesCaller: true,
			Verbosity:            driverRequestVerbosity,
		},
	})
	createStorageClass(ctx, t, s, "mock")
	pvc := createClaim(ctx, t, s, "default", "undone", "mock")
	volume := "pvc-" + string(pvc.UID)

	waitForCreateVolumeReceived(ctx, t, s, volume)
	if err := s.Sidecar().Kill(); err != nil {
		t.Fatalf("kill the sidecar during CreateVolume: %v", err)
	}
	deleteClaim(ctx, t, s, "default", "undone")
	if err := s.Sidecar().Restart(ctx); err != nil {
		t.Fatalf("restart the sidecar: %v", err)
	}

	// The restarted sidecar finds the volume the backend finished and has
	// the driver delete it; it dies right after.
	if _, err := killAfterDeleteVolume(ctx, s, waitTimeout, volume, nil); err != nil {
		t.Fatal(err)
	}
	held, err := s.Client().CoreV1().PersistentVolumeClaims("default").Get(ctx, "undone", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		t.Fatalf("the claim was let go although the sidecar was killed before it had the reply to its DeleteVolume")
	case err != nil:
		t.Fatalf("get PVC default/undone: %v", err)
	case !isTerminating(held) || !hasFinalizer(held, provisioningProtection):
		t.Fatalf("the claim whose volume a killed sidecar deleted is not held: deletionTimestamp %v, finalizers %v; want Terminating with %s",
			held.DeletionTimestamp, held.Finalizers, provisioningProtection)
	}
	st, err := s.DriverState()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(st.Volumes); n != 0 {
		t.Fatalf("the driver holds %d volume(s) after deleting %s, want 0", n, volume)
	}
	ids := backendVolumeIDs(st)[volume]
	if len(ids) != 1 {
		t.Fatalf("the backend made %d volumes named %s before the second kill, want 1", len(ids), volume)
	}
	if handle := held.Annotations[abandonedVolume]; !ids[handle] {
		t.Errorf("the held claim records %s=%q, not the handle of the deleted volume %v", abandonedVolume, handle, slices.Collect(maps.Keys(ids)))
	}
	before, err := readCreateVolumeLog(s)
	if err != nil {
		t.Fatal(err)
	}

	if err := s.Sidecar().Restart(ctx); err != nil {
		t.Fatalf("restart the sidecar after the kill during the undo: %v", err)
	}
	waitForClaimGone(ctx, t, s, "default", "undone")
	waitForDriverVolumes(ctx, t, s, 0)
	if pvs := listPVs(ctx, t, s); len(pvs) != 0 {
		t.Errorf("%d PV(s) exist for a claim that never got one, e.g. %s", len(pvs), pvs[0].Name)
	}
	after, err := readCreateVolumeLog(s)
	if err != nil {
		t.Fatal(err)
	}
	if n := after.received[volume] - before.received[volume]; n != 0 {
		t.Errorf("the sidecar restarted after the undo sent %d CreateVolume(s) for %s, whose volume it had already deleted", n, volume)
	}
	if st, err = s.DriverState(); err != nil {
		t.Fatal(err)
	}
	if ids := backendVolumeIDs(st)[volume]; len(ids) != 1 || after.created[volume] != 1 {
		t.Errorf("the backend made %d volume(s) named %s (%d %q in its log), want 1", len(ids), volume, after.created[volume], "Created volume")
	}
}

// killAfterDeleteVolume kills the sidecar right after the driver deleted the
// volume of the name, before the sidecar could act on the reply: it stops
// the sidecar (SIGSTOP) as soon as the driver receives the DeleteVolume,
// which the driver's DeleteDelay keeps from finishing at once, and kills it
// (SIGKILL) once the driver logs "Deleted volume". While no DeleteVolume
// has come, giveUp (if not nil) may tell that none will; then nothing is
// stopped and it returns false. Once stopped, the sidecar is killed even if
// the wait for the deletion fails.
func killAfterDeleteVolume(ctx context.Context, s *framework.Stack, timeout time.Duration, name string, giveUp func(context.Context) (bool, error)) (bool, error) {
	received := false
	err := s.WaitEvery(ctx, killMomentPoll, timeout, "the driver to receive DeleteVolume for "+name, func(ctx context.Context) (bool, error) {
		l, err := readDeleteVolumeLog(s)
		if err != nil {
			return false, err
		}
		if l.received[name] > 0 {
			received = true
			return true, nil
		}
		if giveUp == nil {
			return false, fmt.Errorf("no DeleteVolume for %s yet", name)
		}
		return giveUp(ctx)
	})
	if err != nil {
		return false, err
	}
	if !received {
		return false, nil
	}
	if err := s.Sidecar().Signal(syscall.SIGSTOP); err != nil {
		return false, fmt.Errorf("stop the sidecar during DeleteVolume: %w", err)
	}
	err = s.WaitEvery(ctx, killMomentPoll, timeout, "the driver to delete "+name, func(context.Context) (bool, error) {
		l, err := readDeleteVolumeLog(s)
		if err != nil {
			return false, err
		}
		return l.deleted[name] > 0, fmt.Errorf("no %q for %s in the driver log yet", "Deleted volume", name)
	})
	if kerr := s.Sidecar().Kill(); kerr != nil {
		return true, errors.Join(err, fmt.Errorf("kill the stopped sidecar: %w", kerr))
	}
	return true, err
}

// waitForAbandonedVolumeDeleted waits until the sidecar announces that it
// deleted vol, the volume the backend made for claim namespace/name
// deleted during its provisioning, and let the claim go. The backend then
// holds no volume and made vol once, and no PV exists. It returns the ids
// the backend gave each volume name.
func waitForAbandonedVolumeDeleted(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string, vol mockdriver.Volume) map[string]map[string]bool {
	t.Helper()
	ev := waitForClaimEvent(ctx, t, s, namespace, name, corev1.EventTypeNormal, reasonAbandonedVolume)
	if !strings.Contains(ev.Message, vol.Name) || !strings.Contains(ev.Message, vol.ID) {
		t.Errorf("%s event does not name volume %s (handle %s): %q", reasonAbandonedVolume, vol.Name, vol.ID, ev.Message)
	}
	waitForClaimGone(ctx, t, s, namespace, name)
	waitForDriverVolumes(ctx, t, s, 0)
	if pvs := listPVs(ctx, t, s); len(pvs) != 0 {
		t.Errorf("%d PV(s) exist for a claim that never got one, e.g. %s", len(pvs), pvs[0].Name)
	}
	st, err := s.DriverState()
	if err != nil {
		t.Fatal(err)
	}
	ids := backendVolumeIDs(st)
	if n := len(ids[vol.Name]); n != 1 {
		t.Errorf("the backend made %d volumes named %s, want 1", n, vol.Name)
	}
	return ids
}

// requireHeld fails the test unless the deleted claim is held: still there,
// Terminating, with the provisioning-protection finalizer. A claim let go
// while its volume may still appear leaves that volume to nobody.
func requireHeld(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name, when string) {
	t.Helper()
	pvc, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		t.Fatalf("claim %s/%s, %s, is already gone: nothing will delete the volume the backend is making", namespace, name, when)
	case err != nil:
		t.Fatalf("get PVC %s/%s: %v", namespace, name, err)
	case !isTerminating(pvc) || !hasFinalizer(pvc, provisioningProtection):
		t.Fatalf("claim %s/%s, %s: deletionTimestamp %v, finalizers %v; want Terminating with %s",
			namespace, name, when, pvc.DeletionTimestamp, pvc.Finalizers, provisioningProtection)
	}
}

// isTerminating reports what kubectl prints as Terminating: a claim whose
// deletion has begun.
func isTerminating(pvc *corev1.PersistentVolumeClaim) bool {
	return pvc.DeletionTimestamp != nil
}

func hasFinalizer(pvc *corev1.PersistentVolumeClaim, finalizer string) bool {
	return slices.Contains(pvc.Finalizers, finalizer)
}

// startSlowBackendClaim starts a stack whose backend takes createDelay to make
// a volume and finishes it even when the caller is gone, with the sidecar's
// metrics served, and creates one claim; it returns the claim's volume name.
func startSlowBackendClaim(t *testing.T, createDelay time.Duration, name string) (context.Context, *framework.Stack, string, string) {
	t.Helper()
	httpFlag, metricsURL := metricsEndpoint(t)
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{
			CreateDelay:          createDelay,
			CreateOutlivesCaller: true,
			Verbosity:            driverRequestVerbosity,
		},
		Sidecar: framework.SidecarOptions{ExtraArgs: []string{httpFlag}},
	})
	createStorageClass(ctx, t, s, "mock")
	pvc := createClaim(ctx, t, s, "default", name, "mock")
	return ctx, s, metricsURL, "pvc-" + string(pvc.UID)
}
