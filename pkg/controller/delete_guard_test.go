package controller

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	k8stesting "k8s.io/client-go/testing"
)

// deletingPV is releasedPV after the library's DELETE, as the informer
// may still show it: deletion timestamp set, the library's finalizer on.
func deletingPV() *v1.PersistentVolume {
	pv := releasedPV(testDriver)
	pv.UID = "pv-uid-1"
	now := metav1.Now()
	pv.DeletionTimestamp = &now
	pv.Finalizers = []string{"kubernetes.io/pv-protection", libraryPVFinalizer}
	return pv
}

// liveVolume puts pv in the API server, as the guard reads it live.
func (e *env) liveVolume(t *testing.T, pv *v1.PersistentVolume) {
	t.Helper()
	if _, err := e.client.CoreV1().PersistentVolumes().Create(context.Background(), pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// deleteOnce runs the library's first pass: DeleteVolume through Delete.
func deleteOnce(t *testing.T, e *env, pv *v1.PersistentVolume) {
	t.Helper()
	if err := e.prov.Delete(context.Background(), pv); err != nil {
		t.Fatal(err)
	}
}

func listCount(e *env) int {
	n := 0
	for _, a := range e.client.Actions() {
		if a.GetVerb() == "list" && a.GetResource().Resource == "persistentvolumes" {
			n++
		}
	}
	return n
}

func TestSecondPassIsSkippedWhenThePVIsGone(t *testing.T) {
	e := newEnv(t, envObjects{})
	pv := deletingPV()
	deleteOnce(t, e, pv)
	if e.prov.ShouldDelete(context.Background(), pv) {
		t.Fatal("a PV that is gone must not be deleted again")
	}
}

func TestSecondPassIsSkippedWhenTheLibraryFinalizerIsGone(t *testing.T) {
	pv := deletingPV()
	live := pv.DeepCopy()
	live.Finalizers = []string{"kubernetes.io/pv-protection"}
	e := newEnv(t, envObjects{})
	e.liveVolume(t, live)
	deleteOnce(t, e, pv)
	if e.prov.ShouldDelete(context.Background(), pv) {
		t.Fatal("a PV whose finalizer the first pass removed must not be deleted again")
	}
	if len(e.csi.deletes) != 1 {
		t.Fatalf("DeleteVolume calls = %d, want 1", len(e.csi.deletes))
	}
}

func TestSecondPassIsSkippedForAPVOfTheSameNameButAnotherUID(t *testing.T) {
	pv := deletingPV()
	other := pv.DeepCopy()
	other.UID = "pv-uid-2"
	e := newEnv(t, envObjects{})
	e.liveVolume(t, other)
	deleteOnce(t, e, pv)
	if e.prov.ShouldDelete(context.Background(), pv) {
		t.Fatal("the PV whose volume was deleted is gone; a new one of the same name is not its business")
	}
}

func TestFailedFinalizerRemovalIsRetried(t *testing.T) {
	pv := deletingPV()
	e := newEnv(t, envObjects{})
	e.liveVolume(t, pv.DeepCopy())
	deleteOnce(t, e, pv)
	if !e.prov.ShouldDelete(context.Background(), pv) {
		t.Fatal("the live PV still has the library's finalizer: the library must run its deletion again")
	}
}

func TestAFailedReadLeavesTheDecisionToTheLibrary(t *testing.T) {
	pv := deletingPV()
	e := newEnv(t, envObjects{})
	e.client.PrependReactor("list", "persistentvolumes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	deleteOnce(t, e, pv)
	if !e.prov.ShouldDelete(context.Background(), pv) {
		t.Fatal("without the live PV, the guard must not stop a deletion")
	}
}

func TestPVsThisProcessDidNotDeleteAreNotRead(t *testing.T) {
	e := newEnv(t, envObjects{})
	for name, pv := range map[string]*v1.PersistentVolume{
		"released, not deleted yet": releasedPV(testDriver),
		"deleted by the user":       deletingPV(),
	} {
		if !e.prov.ShouldDelete(context.Background(), pv) {
			t.Errorf("%s: the guard must leave the PV to the library", name)
		}
	}
	if n := listCount(e); n != 0 {
		t.Fatalf("the guard read %d PVs, want none", n)
	}
}

func TestDeletedVolumesForgetsTheOldestBeyondItsLimit(t *testing.T) {
	d := newDeletedVolumes(2)
	d.add("a")
	d.add("b")
	d.add("b")
	d.add("c")
	kept := func(uid types.UID) bool { deleted, _ := d.state(uid); return deleted }
	if kept("a") || !kept("b") || !kept("c") {
		t.Fatalf("kept a=%v b=%v c=%v, want the two most recent", kept("a"), kept("b"), kept("c"))
	}
}

// removeLibraryFinalizer is the library's patch after its DELETE, sent
// through client.
func removeLibraryFinalizer(t *testing.T, client kubernetes.Interface, pv *v1.PersistentVolume) error {
	t.Helper()
	patch := []byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["` + libraryPVFinalizer + `"]}}`)
	_, err := client.CoreV1().PersistentVolumes().Patch(context.Background(), pv.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	return err
}

func TestSecondPassIsSkippedWithoutAReadOnceTheLibraryRemovedItsFinalizer(t *testing.T) {
	pv := deletingPV()
	e := newEnv(t, envObjects{})
	e.liveVolume(t, pv.DeepCopy())
	deleteOnce(t, e, pv)
	if err := removeLibraryFinalizer(t, e.prov.LibraryClient(e.client, nil), pv); err != nil {
		t.Fatal(err)
	}
	if e.prov.ShouldDelete(context.Background(), pv) {
		t.Fatal("the library removed its finalizer: this copy is stale and must not be deleted again")
	}
	if n := listCount(e); n != 0 {
		t.Fatalf("the guard read %d PVs; the library's own patch already told", n)
	}
}

func TestAFailedLibraryPatchStillLetsTheLiveVolumeDecide(t *testing.T) {
	pv := deletingPV()
	e := newEnv(t, envObjects{})
	e.liveVolume(t, pv.DeepCopy())
	e.client.PrependReactor("patch", "persistentvolumes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	deleteOnce(t, e, pv)
	if err := removeLibraryFinalizer(t, e.prov.LibraryClient(e.client, nil), pv); err == nil {
		t.Fatal("fixture: the patch must fail")
	}
	if !e.prov.ShouldDelete(context.Background(), pv) {
		t.Fatal("the finalizer is still on the live PV: the library must run its deletion again")
	}
	if n := listCount(e); n != 1 {
		t.Fatalf("the guard read %d PVs, want the one read that decides", n)
	}
}

func TestALibraryPatchOfAVolumeNotDeletedHereIsNotRecorded(t *testing.T) {
	pv := deletingPV()
	e := newEnv(t, envObjects{})
	e.liveVolume(t, pv.DeepCopy())
	if err := removeLibraryFinalizer(t, e.prov.LibraryClient(e.client, nil), pv); err != nil {
		t.Fatal(err)
	}
	if !e.prov.ShouldDelete(context.Background(), pv) {
		t.Fatal("a PV whose volume this process did not delete is the library's to judge")
	}
}
