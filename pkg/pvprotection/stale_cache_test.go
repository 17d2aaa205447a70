package pvprotection

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// The provisioning library stores each PV it creates in the shared cache as
// it sent it, without a resourceVersion. The finalizer still gets added,
// against the stored version.
func TestPVCachedWithoutVersionGetsFinalizerFromTheStoredOne(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv")}})
	testutil.WaitCachedThat(t, e.Timeout, e.store, "pv", func(*v1.PersistentVolume) bool { return true })
	sent := newPV("pv")
	sent.ResourceVersion = ""
	if err := e.store.Update(sent); err != nil {
		t.Fatal(err)
	}

	if err := e.syncNow(t, "pv"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if gets := len(testutil.Actions(e.Client.Actions(), testutil.Verb("get"), testutil.On("persistentvolumes"))); gets != 1 {
		t.Errorf("%d GETs of the PV, want 1", gets)
	}
	if !e.hasFinalizer(t, "pv") {
		t.Error("the finalizer was not added")
	}
}

// The PV's deletion reaches the informer, which forgets the hold, before the
// patch that removed the last finalizer returns: the release is still told.
func TestReleaseIsToldWhenTheDeletionOvertakesThePatch(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv", protected, testutil.Deleting(), testutil.BoundTo("ns", "db", ""))}})
	if err := e.sync(t, "pv"); err != nil {
		t.Fatal(err)
	}
	testutil.UpdatePV(t, e.Client, "pv", testutil.WithVolumePhase(v1.VolumeReleased))
	testutil.WaitCachedThat(t, e.Timeout, e.store, "pv", func(pv *v1.PersistentVolume) bool { return pv.Status.Phase == v1.VolumeReleased })
	testutil.BeforeEach(e.Client, func(k8stesting.Action) {
		e.ctrl.holds.Forget("pv") // what a sync after the PV's deletion event does
	}, pvPatch...)
	if err := e.syncNow(t, "pv"); err != nil {
		t.Fatal(err)
	}
	if got := testutil.WithReason(e.Events.Drain(), ReasonDeletionReleased); len(got) != 1 {
		t.Errorf("release events: %v, want one", got)
	}
}
