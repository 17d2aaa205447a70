package recyclebin

import (
	"errors"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// beingDeleted is a PV a user deleted: it waits for its finalizers.
func beingDeleted(pv *v1.PersistentVolume) { pv.DeletionTimestamp = &metav1.Time{Time: start} }

func TestAVolumeKeptUnprotectedIsProtectedInOneWriteAndKeepsItsDeadline(t *testing.T) {
	deadline := now.Add(time.Hour)
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1", keptUnprotected(deadline))}})
	before := e.pv(t, "pvc-1")
	e.run(t)
	e.Eventually(t, "the PV to say Retain", func() bool {
		return e.pv(t, "pvc-1").Spec.PersistentVolumeReclaimPolicy == v1.PersistentVolumeReclaimRetain
	})
	e.resync(t, "pvc-1")

	e.expectOneWritePinnedTo(t, before)
	expectOnly(t, before, e.pv(t, "pvc-1"), func(pv *v1.PersistentVolume) {
		pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
		pv.Annotations[AnnReclaimPolicy] = "Delete"
		pv.Finalizers = []string{"kubernetes.io/pv-protection", FinalizerKept}
	})
	results := e.results.of("pvc-1")
	if last := results[len(results)-1]; last.RequeueAfter != deadline.Sub(start) {
		t.Errorf("requeue after %v; want %v: the recorded deadline holds", last.RequeueAfter, deadline.Sub(start))
	}
	if n := len(e.handOvers.all()); n != 0 {
		t.Errorf("handed over %d times before the deadline", n)
	}
}

func TestAKeptVolumeDeletedByAUserHasItsVolumeDeletedAndThenGoes(t *testing.T) {
	before := newVolume("pvc-1", recordedUntil(now.Add(72*time.Hour)), beingDeleted)
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{before}})
	before = e.pv(t, "pvc-1")
	e.run(t)
	e.Eventually(t, "the bin's finalizer to go", func() bool { return !slices.Contains(e.pv(t, "pvc-1").Finalizers, FinalizerKept) })
	e.resync(t, "pvc-1")

	if got := e.deletions.all(); len(got) == 0 || got[0] != "pvc-1" {
		t.Fatalf("volumes deleted: %v; want pvc-1's", got)
	}
	e.expectOneWritePinnedTo(t, before)
	expectOnly(t, before, e.pv(t, "pvc-1"), func(pv *v1.PersistentVolume) {
		// Only kube-controller-manager's PV protection is left, which lets
		// a Released PV go.
		pv.Finalizers = []string{"kubernetes.io/pv-protection"}
		delete(pv.Annotations, AnnReclaimPolicy)
	})
	if h := e.handOvers.all(); len(h) != 0 {
		t.Errorf("handed over %v: the library leaves a PV being deleted without its finalizer alone", names(h))
	}
	if got := e.events.with(ReasonPurged); len(got) != 1 {
		t.Errorf("purge events = %q; want one", got)
	}
}

func TestAKeptVolumeBeingDeletedKeepsItsFinalizerWhileDeleteVolumeFails(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1", recordedUntil(now.Add(72*time.Hour)), beingDeleted)}})
	e.deletions.fail(errors.New("backend unavailable"))
	e.run(t)
	e.Eventually(t, "two attempts", func() bool { return len(e.deletions.all()) >= 2 })

	if w := e.writes("persistentvolumes"); len(w) != 0 {
		t.Errorf("writes = %v; the PV must keep naming its volume until the volume is deleted", w)
	}
}

func TestAGivenBackVolumeSaysRetainUntilBoundThenDeleteAgain(t *testing.T) {
	e := newEnv(t, setup{
		volumes: []*v1.PersistentVolume{newVolume("pvc-1", recordedUntil(now.Add(72*time.Hour)), restoreTo("restored/data-again"))},
		claims:  []*v1.PersistentVolumeClaim{newClaim(newNamespace, newClaimName, newUID, "pvc-1")},
	})
	e.run(t)
	e.Eventually(t, "the PV to name the new claim", func() bool { return e.pv(t, "pvc-1").Spec.ClaimRef.UID == newUID })
	e.resync(t, "pvc-1")
	if pv := e.pv(t, "pvc-1"); !protected(pv) {
		t.Fatalf("the PV given back but not bound says %s with finalizers %v; want it still protected", pv.Spec.PersistentVolumeReclaimPolicy, pv.Finalizers)
	}

	// kube-controller-manager binds them.
	testutil.UpdateStatus(t, e.Client.CoreV1().PersistentVolumes(), "pvc-1", bound)
	before := e.pv(t, "pvc-1")
	e.Eventually(t, "the PV to say Delete", func() bool {
		return e.pv(t, "pvc-1").Spec.PersistentVolumeReclaimPolicy == v1.PersistentVolumeReclaimDelete
	})
	expectOnly(t, before, e.pv(t, "pvc-1"), func(pv *v1.PersistentVolume) {
		pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimDelete
		delete(pv.Annotations, AnnReclaimPolicy)
		pv.Finalizers = []string{"kubernetes.io/pv-protection", libraryFinalizer}
	})
	if h := e.handOvers.all(); len(h) != 0 {
		t.Errorf("handed over %v; a bound volume is not deleted", names(h))
	}
}

func TestAVolumeWhoseRecordedPolicyIsRetainIsLetGoWithoutDeletingIt(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1", recordedUntil(now.Add(72*time.Hour)), beingDeleted,
		func(pv *v1.PersistentVolume) { pv.Annotations[AnnReclaimPolicy] = "Retain" })}})
	e.run(t)
	e.Eventually(t, "the bin's finalizer to go", func() bool { return !slices.Contains(e.pv(t, "pvc-1").Finalizers, FinalizerKept) })

	if got := e.deletions.all(); len(got) != 0 {
		t.Errorf("volumes deleted: %v; the recorded policy Retain keeps the volume", got)
	}
	if pv := e.pv(t, "pvc-1"); pv.Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimRetain {
		t.Errorf("policy %s; want Retain", pv.Spec.PersistentVolumeReclaimPolicy)
	}
}

// docs/recycle-bin.md: a restore request made once a purge was asked for
// is refused, on both objects, since the volume is being deleted.
func TestARestoreRequestOnAPurgedVolumeIsRefusedOnBothObjects(t *testing.T) {
	e := newEnv(t, setup{
		volumes: []*v1.PersistentVolume{newVolume("pvc-1", recordedUntil(now.Add(72*time.Hour)), purgeRequested, restoreTo("restored/data-again"))},
		claims:  []*v1.PersistentVolumeClaim{newClaim(newNamespace, newClaimName, newUID, "pvc-1")},
	})
	e.run(t)
	e.Eventually(t, "the refusals", func() bool { return len(e.events.with(ReasonRestoreRefused)) == 2 })

	msg := "Warning VolumeRestoreRefused Volume pvc-1 is not given back: it is being deleted, since a purge was requested"
	want := []string{onVolume("pvc-1", msg), onClaim(newNamespace, newClaimName, msg)}
	if got := e.events.with(ReasonRestoreRefused); !slices.Equal(distinct(got), want) {
		t.Errorf("refusals = %q; want %q", got, want)
	}
	if ref := e.pv(t, "pvc-1").Spec.ClaimRef; ref.UID != oldUID {
		t.Errorf("the purged PV names claim %s; want the one it came from", ref.UID)
	}
}

// kube-controller-manager's PV protection lets a Released PV being deleted
// go meanwhile: the bin's release then conflicts, and is made again
// without asking the driver twice.
func TestAReleaseThatConflictsDeletesTheVolumeOnce(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1", recordedUntil(now.Add(72*time.Hour)), beingDeleted)}})
	testutil.FailNext(e.Client, 1, apierrors.NewConflict(v1.Resource("persistentvolumes"), "pvc-1", errors.New("the object has been modified")),
		testutil.Verb("patch"), testutil.On("persistentvolumes"))
	e.run(t)
	e.Eventually(t, "the bin's finalizer to go", func() bool { return !slices.Contains(e.pv(t, "pvc-1").Finalizers, FinalizerKept) })

	if got := e.deletions.all(); len(got) != 1 {
		t.Errorf("volumes deleted: %v; want pvc-1's once", got)
	}
}
