package controller

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/controller/library"
)

// The delete guard itself is the library adapter's (pkg/controller/library,
// delete_guard_test.go); here, that the provisioner feeds and asks it.

// deletingPV is releasedPV after the library's DELETE, as the informer
// may still show it: deletion timestamp set, the library's finalizer on.
func deletingPV() *v1.PersistentVolume {
	pv := releasedPV(testDriver)
	pv.UID = "pv-uid-1"
	now := metav1.Now()
	pv.DeletionTimestamp = &now
	pv.Finalizers = []string{"kubernetes.io/pv-protection", library.PVFinalizer}
	return pv
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

// A volume Delete deleted is not deleted again from a stale copy of its PV
// once the first pass removed the library's finalizer.
func TestSecondPassIsSkippedAfterDelete(t *testing.T) {
	pv := deletingPV()
	live := pv.DeepCopy()
	live.Finalizers = []string{"kubernetes.io/pv-protection"}
	e := newEnv(t, envObjects{})
	testutil.Create(t, e.client.CoreV1().PersistentVolumes(), live)
	if err := e.prov.Delete(context.Background(), pv); err != nil {
		t.Fatal(err)
	}
	if e.prov.ShouldDelete(context.Background(), pv) {
		t.Fatal("a PV whose finalizer the first pass removed must not be deleted again")
	}
	if len(e.csi.deletes) != 1 {
		t.Fatalf("DeleteVolume calls = %d, want 1", len(e.csi.deletes))
	}
}

func TestPVsThisProcessDidNotDeleteAreLeftToTheLibrary(t *testing.T) {
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
