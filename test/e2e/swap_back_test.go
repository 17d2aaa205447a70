//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// The recycle bin's volumes survive a plain swap to a provisioner that does
// not know the bin, and the bin takes them up again after the swap back.
//
// Five claims are deleted and their volumes kept: one is deleted by a user
// while the stand-in runs, one asked back for a new claim, one purged, one
// whose retention ends meanwhile, and one let go to the stand-in with the
// documented patch, which the stand-in then deletes. A fifth claim, of a class without
// retention, is deleted under the stand-in: its volume goes, which shows
// the stand-in deletes what a Released Delete PV names. No kept volume is
// deleted under it and their data stay; back on this sidecar, the deleted
// PV's volume is deleted and the PV goes, the asked-back volume is bound to
// its new claim with its data, and the purged and expired ones are deleted.
func TestRecycleBinSurvivesASwapToAProvisionerThatDoesNotKnowIt(t *testing.T) {
	ctx, s := startRecycleBinStack(t, "--volume-retention=1h")
	createStorageClass(ctx, t, s, "mock")
	createStorageClass(ctx, t, s, "short", withRetention("45s"))
	createStorageClass(ctx, t, s, "plain", withRetention("0"))

	expiring := provisionAndRetain(ctx, t, s, "default", "expiring", "short")
	deletedByUser := provisionAndRetain(ctx, t, s, "default", "deleted-by-user", "mock")
	askedBack := provisionAndRetain(ctx, t, s, "default", "asked-back", "mock")
	purged := provisionAndRetain(ctx, t, s, "default", "purged", "mock")
	letGo := provisionAndRetain(ctx, t, s, "default", "let-go", "mock")
	kept := []retainedVolume{expiring, deletedByUser, askedBack, purged, letGo}
	for _, r := range kept {
		waitForPV(ctx, t, s, r.pv.Name, "to be kept safely", keptSafely)
	}
	createClaim(ctx, t, s, "default", "control", "plain")
	_, control := waitForClaimBound(ctx, t, s, "default", "control")

	// The plain rollback: this sidecar stops, the stand-in starts with
	// the same command line.
	if err := s.Sidecar().Stop(); err != nil {
		t.Fatal(err)
	}
	standIn, err := s.StartSidecar(ctx, framework.SidecarOptions{Binary: upstreamLikeBinary(t), Verbosity: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range kept {
		// The library's own decision on each kept PV, in its log.
		waitFor(ctx, t, s, "the stand-in to decide on PV "+r.pv.Name, func(context.Context) (bool, error) {
			n := countLogLines(t, standIn, "does not have Delete reclaim policy", r.pv.Name)
			return n > 0, fmt.Errorf("not in %s", standIn.LogFile())
		})
	}
	deleteClaim(ctx, t, s, "default", "control")
	waitForBackendVolumeGone(ctx, t, s, control.Spec.CSI.VolumeHandle)

	// docs/back-to-upstream.md's way to have upstream delete a kept
	// volume: the policy back and the bin's finalizer off, in one patch.
	if _, err := s.Client().CoreV1().PersistentVolumes().Patch(ctx, letGo.pv.Name, types.StrategicMergePatchType, []byte(letGoPatch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("the documented patch: %v", err)
	}
	waitForBackendVolumeGone(ctx, t, s, letGo.pv.Spec.CSI.VolumeHandle)
	waitForPVGone(ctx, t, s, letGo.pv.Name)
	kept = kept[:len(kept)-1]

	if err := s.Client().CoreV1().PersistentVolumes().Delete(ctx, deletedByUser.pv.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	createNamespace(ctx, t, s, "elsewhere")
	createClaim(ctx, t, s, "elsewhere", "back", "mock", forVolume(askedBack.pv.Name))
	annotatePV(ctx, t, s, askedBack.pv.Name, annRestoreTo, "elsewhere/back")
	annotatePV(ctx, t, s, purged.pv.Name, annPurge, "true")
	waitFor(ctx, t, s, "the retention of PV "+expiring.pv.Name+" to end", func(context.Context) (bool, error) {
		return time.Now().After(expiring.until), fmt.Errorf("it ends at %s", expiring.until)
	})
	// The stand-in had the time to act on each change: a PV being
	// deleted still names its volume, and every kept volume is there.
	pv := waitForPV(ctx, t, s, deletedByUser.pv.Name, "to be Terminating", func(pv *corev1.PersistentVolume) bool { return pv.DeletionTimestamp != nil })
	if !keptSafely(pv) {
		t.Errorf("PV %s, deleted under the stand-in, lost its protection: policy %s, finalizers %v", pv.Name, pv.Spec.PersistentVolumeReclaimPolicy, pv.Finalizers)
	}
	for _, r := range kept {
		expectVolumeData(t, s, r)
		if n := len(deleteVolumeRequests(t, s, r.pv.Spec.CSI.VolumeHandle)); n != 0 {
			t.Errorf("the stand-in sent %d DeleteVolume for the kept volume of PV %s", n, r.pv.Name)
		}
	}
	if got := getClaim(ctx, t, s, "elsewhere", "back"); got.Status.Phase == corev1.ClaimBound {
		t.Errorf("claim elsewhere/back was bound under the stand-in: only the bin gives a volume back")
	}

	// Back to this sidecar.
	if err := standIn.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Sidecar().Restart(ctx); err != nil {
		t.Fatal(err)
	}
	waitForPVGone(ctx, t, s, deletedByUser.pv.Name)
	waitForBackendVolumeGone(ctx, t, s, deletedByUser.pv.Spec.CSI.VolumeHandle)
	_, pv = waitForClaimBound(ctx, t, s, "elsewhere", "back")
	if pv.Name != askedBack.pv.Name {
		t.Errorf("claim elsewhere/back bound to %s; want the kept %s", pv.Name, askedBack.pv.Name)
	}
	expectVolumeData(t, s, askedBack)
	waitForPV(ctx, t, s, pv.Name, "to say Delete again once bound", func(pv *corev1.PersistentVolume) bool {
		return pv.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimDelete && pv.Annotations[annReclaimPolicy] == ""
	})
	for _, r := range []retainedVolume{purged, expiring} {
		waitForBackendVolumeGone(ctx, t, s, r.pv.Spec.CSI.VolumeHandle)
		waitForPVGone(ctx, t, s, r.pv.Name)
	}
	waitForPVEvent(ctx, t, s, expiring.pv.Name, corev1.EventTypeNormal, reasonVolumeRetentionExpired)
}

// letGoPatch is docs/back-to-upstream.md's patch that lets a provisioner
// that does not know the bin delete a kept volume.
const letGoPatch = `{"spec":{"persistentVolumeReclaimPolicy":"Delete"},"metadata":{"annotations":{"provisioner.storage.kubernetes.io/reclaim-policy":null},"$deleteFromPrimitiveList/finalizers":["provisioner.storage.kubernetes.io/recycle-bin"]}}`

// expectVolumeData checks that the driver still holds r's volume with the
// data it held when its claim was deleted.
func expectVolumeData(t *testing.T, s *framework.Stack, r retainedVolume) {
	t.Helper()
	vol, ok := volumeByID(driverVolumes(t, s), r.pv.Spec.CSI.VolumeHandle)
	switch {
	case !ok:
		t.Errorf("the driver no longer holds the kept volume %s of PV %s", r.pv.Spec.CSI.VolumeHandle, r.pv.Name)
	case vol.DataID == "" || vol.DataID != r.backend.DataID:
		t.Errorf("the kept volume of PV %s holds data %q; its claim's held %q", r.pv.Name, vol.DataID, r.backend.DataID)
	}
}

// waitForPV waits until PV name satisfies ok, and returns it.
func waitForPV(ctx context.Context, t *testing.T, s *framework.Stack, name, what string, ok func(*corev1.PersistentVolume) bool) *corev1.PersistentVolume {
	t.Helper()
	var pv *corev1.PersistentVolume
	waitFor(ctx, t, s, "PV "+name+" "+what, func(ctx context.Context) (bool, error) {
		got, err := s.Client().CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pv = got
		return ok(got), fmt.Errorf("policy %s, finalizers %v, annotations %v, phase %s", got.Spec.PersistentVolumeReclaimPolicy, got.Finalizers, got.Annotations, got.Status.Phase)
	})
	return pv
}
