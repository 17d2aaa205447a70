package library

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// deletingPV is a released PV after the library's DELETE, as the informer
// may still show it: deletion timestamp set, the library's finalizer on.
func deletingPV() *v1.PersistentVolume {
	return releasedVolume("pvc-"+testClaimUID, testutil.WithUID("pv-uid-1"), testutil.Deleting(),
		testutil.WithFinalizers("kubernetes.io/pv-protection", PVFinalizer))
}

// guarded is an Adapter whose delete guard reads the PVs of an API server
// holding live, if set.
func guarded(t *testing.T, live *v1.PersistentVolume) (*Adapter, *fake.Clientset) {
	t.Helper()
	var objs []runtime.Object
	if live != nil {
		objs = append(objs, live)
	}
	client := fake.NewClientset(objs...)
	return New(Options{Client: client}), client
}

func listCount(client *fake.Clientset) int {
	return len(testutil.Actions(client.Actions(), testutil.Verb("list"), testutil.On("persistentvolumes")))
}

func TestSecondPassIsSkippedWhenThePVIsGone(t *testing.T) {
	a, _ := guarded(t, nil)
	pv := deletingPV()
	a.VolumeDeleted(pv.UID)
	if !a.AlreadyDeleted(context.Background(), pv) {
		t.Fatal("a PV that is gone must not be deleted again")
	}
}

func TestSecondPassIsSkippedWhenTheLibraryFinalizerIsGone(t *testing.T) {
	pv := deletingPV()
	live := pv.DeepCopy()
	live.Finalizers = []string{"kubernetes.io/pv-protection"}
	a, _ := guarded(t, live)
	a.VolumeDeleted(pv.UID)
	if !a.AlreadyDeleted(context.Background(), pv) {
		t.Fatal("a PV whose finalizer the first pass removed must not be deleted again")
	}
}

func TestSecondPassIsSkippedForAPVOfTheSameNameButAnotherUID(t *testing.T) {
	pv := deletingPV()
	other := pv.DeepCopy()
	other.UID = "pv-uid-2"
	a, _ := guarded(t, other)
	a.VolumeDeleted(pv.UID)
	if !a.AlreadyDeleted(context.Background(), pv) {
		t.Fatal("the PV whose volume was deleted is gone; a new one of the same name is not its business")
	}
}

func TestFailedFinalizerRemovalIsRetried(t *testing.T) {
	pv := deletingPV()
	a, _ := guarded(t, pv.DeepCopy())
	a.VolumeDeleted(pv.UID)
	if a.AlreadyDeleted(context.Background(), pv) {
		t.Fatal("the live PV still has the library's finalizer: the library must run its deletion again")
	}
}

func TestAFailedReadLeavesTheDecisionToTheLibrary(t *testing.T) {
	pv := deletingPV()
	a, client := guarded(t, nil)
	testutil.FailNext(client, -1, errors.New("connection refused"), testutil.Verb("list"), testutil.On("persistentvolumes"))
	a.VolumeDeleted(pv.UID)
	if a.AlreadyDeleted(context.Background(), pv) {
		t.Fatal("without the live PV, the guard must not stop a deletion")
	}
}

func TestPVsThisProcessDidNotDeleteAreNotRead(t *testing.T) {
	a, client := guarded(t, nil)
	for name, pv := range map[string]*v1.PersistentVolume{
		"released, not deleted yet": releasedVolume("pvc-1"),
		"deleted by the user":       deletingPV(),
	} {
		if a.AlreadyDeleted(context.Background(), pv) {
			t.Errorf("%s: the guard must leave the PV to the library", name)
		}
	}
	if n := listCount(client); n != 0 {
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
	patch := []byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["` + PVFinalizer + `"]}}`)
	_, err := client.CoreV1().PersistentVolumes().Patch(context.Background(), pv.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	return err
}

func TestSecondPassIsSkippedWithoutAReadOnceTheLibraryRemovedItsFinalizer(t *testing.T) {
	pv := deletingPV()
	a, client := guarded(t, pv.DeepCopy())
	a.VolumeDeleted(pv.UID)
	if err := removeLibraryFinalizer(t, a.Client(client, nil), pv); err != nil {
		t.Fatal(err)
	}
	if !a.AlreadyDeleted(context.Background(), pv) {
		t.Fatal("the library removed its finalizer: this copy is stale and must not be deleted again")
	}
	if n := listCount(client); n != 0 {
		t.Fatalf("the guard read %d PVs; the library's own patch already told", n)
	}
}

func TestAFailedLibraryPatchStillLetsTheLiveVolumeDecide(t *testing.T) {
	pv := deletingPV()
	a, client := guarded(t, pv.DeepCopy())
	testutil.FailNext(client, -1, errors.New("connection refused"), testutil.Verb("patch"), testutil.On("persistentvolumes"))
	a.VolumeDeleted(pv.UID)
	if err := removeLibraryFinalizer(t, a.Client(client, nil), pv); err == nil {
		t.Fatal("fixture: the patch must fail")
	}
	if a.AlreadyDeleted(context.Background(), pv) {
		t.Fatal("the finalizer is still on the live PV: the library must run its deletion again")
	}
	if n := listCount(client); n != 1 {
		t.Fatalf("the guard read %d PVs, want the one read that decides", n)
	}
}

func TestALibraryPatchOfAVolumeNotDeletedHereIsNotRecorded(t *testing.T) {
	pv := deletingPV()
	a, client := guarded(t, pv.DeepCopy())
	if err := removeLibraryFinalizer(t, a.Client(client, nil), pv); err != nil {
		t.Fatal(err)
	}
	if a.AlreadyDeleted(context.Background(), pv) {
		t.Fatal("a PV whose volume this process did not delete is the library's to judge")
	}
}
