package snapshotprotection

import (
	"context"
	"errors"
	"testing"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	snapfake "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned/fake"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

func TestFinalizerGoesOnceTheRestoredClaimHasItsVolume(t *testing.T) {
	e := newEnv(t, setup{
		claims:    []*v1.PersistentVolumeClaim{restoreClaim("restored", "nightly", "pvc-restored")},
		snapshots: []*snapv1.VolumeSnapshot{protectedSnapshot("nightly")},
	})
	e.run(t)
	e.waitReleased(t, "nightly")
	if got := e.snapshot(t, "nightly").Finalizers; len(got) != 1 || got[0] != "snapshot.storage.kubernetes.io/volumesnapshot-bound-protection" {
		t.Errorf("finalizers = %v, want only the snapshot controller's left", got)
	}
	if n := e.metric(t, "finalizers_removed_total"); n != 1 {
		t.Errorf("finalizers_removed_total = %v, want 1", n)
	}
}

func TestFinalizerStaysWhileAClaimWaitsForItsRestore(t *testing.T) {
	e := newEnv(t, setup{
		claims: []*v1.PersistentVolumeClaim{
			restoreClaim("done", "nightly", "pvc-done"),
			restoreClaim("waiting", "nightly", ""),
		},
		snapshots: []*snapv1.VolumeSnapshot{protectedSnapshot("nightly")},
	})
	e.runAndExpectKept(t, "nightly", "while a claim still waits for a volume restored from the snapshot")
}

func TestFinalizerStaysWhileARestoreOfThisProcessRunsForADeletedClaim(t *testing.T) {
	// With provisioning protection off a claim can leave the API while its
	// CreateVolume still reads the snapshot.
	e := newEnv(t, setup{snapshots: []*snapv1.VolumeSnapshot{protectedSnapshot("nightly")}})
	source := keyOf("nightly")
	e.readers.Begin(source)
	e.runAndExpectKept(t, "nightly", "while a restore reads the snapshot")
	e.readers.End(source)
	e.waitReleased(t, "nightly")
}

func TestOrphanedFinalizerGoesAtStartUp(t *testing.T) {
	// The claim went away while no sidecar ran.
	e := newEnv(t, setup{snapshots: []*snapv1.VolumeSnapshot{protectedSnapshot("nightly")}})
	e.run(t)
	e.waitReleased(t, "nightly")
}

func TestFinalizerGoesWhenTheLastWaitingClaimIsDeleted(t *testing.T) {
	e := newEnv(t, setup{
		claims:    []*v1.PersistentVolumeClaim{restoreClaim("waiting", "nightly", "")},
		snapshots: []*snapv1.VolumeSnapshot{protectedSnapshot("nightly")},
	})
	e.runAndExpectKept(t, "nightly", "while the claim waits")
	testutil.Delete(t, e.Client.CoreV1().PersistentVolumeClaims(namespace), "waiting")
	e.waitReleased(t, "nightly")
}

func TestSweepQueuesEveryProtectedSnapshot(t *testing.T) {
	e := newEnv(t, setup{
		claims:    []*v1.PersistentVolumeClaim{restoreClaim("waiting", "nightly", "")},
		snapshots: []*snapv1.VolumeSnapshot{protectedSnapshot("nightly")},
	})
	e.run(t)
	e.waitSynced(t, "nightly", 0)
	before := e.syncs("nightly")
	e.ctrl.Sweep(context.Background())
	e.waitSynced(t, "nightly", before)
	if n := e.metric(t, "sweeps_total"); n != 1 {
		t.Errorf("sweeps_total = %v, want 1", n)
	}
}

func TestSnapshotsWithoutTheFinalizerAreNeverWritten(t *testing.T) {
	s := protectedSnapshot("plain")
	s.Finalizers = nil
	e := newEnv(t, setup{
		claims:    []*v1.PersistentVolumeClaim{restoreClaim("restored", "plain", "pvc-restored")},
		snapshots: []*snapv1.VolumeSnapshot{s},
	})
	e.run(t)
	e.waitSynced(t, "plain", 0)
	if updates := testutil.Actions(e.snapClient.Actions(), testutil.Verb("update")); len(updates) != 0 {
		t.Fatalf("wrote a snapshot that has no finalizer of ours: %v", updates)
	}
}

func TestForbiddenRemovalIsReportedOnTheSnapshot(t *testing.T) {
	e := newEnv(t, setup{
		snapshots: []*snapv1.VolumeSnapshot{protectedSnapshot("nightly")},
		react: func(c *snapfake.Clientset) {
			forbidden := apierrors.NewForbidden(schema.GroupResource{Group: provisionstate.SnapshotAPIGroup, Resource: "volumesnapshots"}, "nightly", errors.New("RBAC"))
			testutil.FailNext(c, -1, forbidden, testutil.Verb("update"), testutil.On("volumesnapshots"))
		},
	})
	e.run(t)
	e.Events.Wait(t, e.Timeout, ReasonFinalizerWriteForbidden, "update on VolumeSnapshot")
}
