package pvprotection

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
)

// The provisioning library stores each PV it creates in the shared cache as
// it sent it, without a resourceVersion. The finalizer still gets added,
// against the stored version.
func TestPVCachedWithoutVersionGetsFinalizerFromTheStoredOne(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv")}})
	e.waitCached(t, "pv", func(*v1.PersistentVolume) bool { return true })
	sent := newPV("pv")
	sent.ResourceVersion = ""
	if err := e.store.Update(sent); err != nil {
		t.Fatal(err)
	}

	if err := e.syncNow(t, "pv"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	gets := 0
	for _, a := range e.client.Actions() {
		if a.GetVerb() == "get" && a.GetResource().Resource == "persistentvolumes" {
			gets++
		}
	}
	if gets != 1 {
		t.Errorf("%d GETs of the PV, want 1", gets)
	}
	if !hasFinalizer(e.pv(t, "pv")) {
		t.Error("the finalizer was not added")
	}
}

// The PV's deletion reaches the informer, which forgets the hold, before the
// patch that removed the last finalizer returns: the release is still told.
func TestReleaseIsToldWhenTheDeletionOvertakesThePatch(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv", protected, deleting, boundTo("ns", "db"))}})
	if err := e.sync(t, "pv"); err != nil {
		t.Fatal(err)
	}
	e.update(t, "pv", phase(v1.VolumeReleased))
	e.waitCached(t, "pv", func(pv *v1.PersistentVolume) bool { return pv.Status.Phase == v1.VolumeReleased })
	e.client.PrependReactor("patch", "persistentvolumes", func(clienttesting.Action) (bool, runtime.Object, error) {
		e.ctrl.holds.Forget("pv") // what a sync after the PV's deletion event does
		return false, nil, nil
	})
	if err := e.syncNow(t, "pv"); err != nil {
		t.Fatal(err)
	}
	if got := withReason(e.events(), ReasonDeletionReleased); len(got) != 1 {
		t.Errorf("release events: %v, want one", got)
	}
}
