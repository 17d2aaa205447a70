package snapshotprotection

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	snapfake "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned/fake"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

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
	e.run(t)
	e.waitSynced(t, "nightly", 0)
	if !e.protected(t, "nightly") {
		t.Fatal("finalizer removed while a claim still waits for a volume restored from the snapshot")
	}
}

func TestFinalizerStaysWhileARestoreOfThisProcessRunsForADeletedClaim(t *testing.T) {
	// With provisioning protection off a claim can leave the API while its
	// CreateVolume still reads the snapshot.
	e := newEnv(t, setup{snapshots: []*snapv1.VolumeSnapshot{protectedSnapshot("nightly")}})
	source := cache.ObjectName{Namespace: namespace, Name: "nightly"}
	e.readers.Begin(source)
	e.run(t)
	e.waitSynced(t, "nightly", 0)
	if !e.protected(t, "nightly") {
		t.Fatal("finalizer removed while a restore reads the snapshot")
	}
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
	e.run(t)
	e.waitSynced(t, "nightly", 0)
	if !e.protected(t, "nightly") {
		t.Fatal("finalizer removed while the claim waits")
	}
	e.deleteClaim(t, "waiting")
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
	for _, a := range e.snapClient.Actions() {
		if a.GetVerb() == "update" {
			t.Fatalf("wrote a snapshot that has no finalizer of ours: %v", a)
		}
	}
}

func TestForbiddenRemovalIsReportedOnTheSnapshot(t *testing.T) {
	e := newEnv(t, setup{
		snapshots: []*snapv1.VolumeSnapshot{protectedSnapshot("nightly")},
		react: func(c *snapfake.Clientset) {
			c.PrependReactor("update", "volumesnapshots", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: provisionstate.SnapshotAPIGroup, Resource: "volumesnapshots"}, "nightly", errors.New("RBAC"))
			})
		},
	})
	e.run(t)
	testutil.Eventually(t, 5*time.Second, "a FinalizerWriteForbidden event", func() bool {
		for _, ev := range testutil.Drain(e.recorder.Events) {
			if strings.Contains(ev, ReasonFinalizerWriteForbidden) && strings.Contains(ev, "update on VolumeSnapshot") {
				return true
			}
		}
		return false
	})
}

func (e *env) deleteClaim(t *testing.T, name string) {
	t.Helper()
	if err := e.claimClient.CoreV1().PersistentVolumeClaims(namespace).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}
