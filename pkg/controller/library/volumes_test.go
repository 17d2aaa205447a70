package library

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// Library v10's PVs as the project relies on them, run live.

// volumeOf returns the PV of that name on the server, nil once it is gone.
func (l *liveLibrary) volumeOf(t *testing.T, name string) *v1.PersistentVolume {
	t.Helper()
	pv, _ := testutil.Find(t, l.Client.CoreV1().PersistentVolumes(), name)
	return pv
}

// With AddFinalizer the library puts PVFinalizer on the PVs it provisions.
// Once Delete succeeded it DELETEs the PV, then removes the finalizer with
// a patch through the client it was given, where the Adapter sees that the
// deletion is done (AlreadyDeleted).
func TestTheLibraryKeepsItsFinalizerUntilTheVolumeIsDeleted(t *testing.T) {
	l := newLiveLibrary(t, []runtime.Object{newClaim("db"), newClass()}, liveOptions{addFinalizer: true})
	l.provisioner.del = func(_ context.Context, pv *v1.PersistentVolume) error {
		l.adapter.VolumeDeleted(pv.UID)
		return nil
	}
	l.start(t)
	pvName := "pvc-" + testClaimUID
	testutil.Eventually(t, 10*time.Second, "the provisioned PV", func() bool { return l.volumeOf(t, pvName) != nil })
	pv := l.volumeOf(t, pvName)
	if !slices.Contains(pv.Finalizers, PVFinalizer) {
		t.Fatalf("the provisioned PV has finalizers %v, want %s", pv.Finalizers, PVFinalizer)
	}

	testutil.UpdatePV(t, l.Client, pvName, func(pv *v1.PersistentVolume) { pv.Status.Phase = v1.VolumeReleased })
	// The PV is gone once the library's patch removed the finalizer; the
	// patch's answer reaches the Adapter just after.
	testutil.Eventually(t, 10*time.Second, "the PV gone, and the Adapter to see its finalizer removed", func() bool {
		_, finalized := l.adapter.deleted.state(pv.UID)
		return l.volumeOf(t, pvName) == nil && finalized
	})
	if n := len(l.provisioner.deletes()); n != 1 {
		t.Fatalf("%d Delete calls, want 1", n)
	}
}

// The library takes its finalizer off a PV that says Retain (as the
// recycle bin's kept PVs do) and never deletes its volume; it puts the
// finalizer back only on a Bound PV that says Delete, so the bin gives it
// back itself to a Released PV.
func TestTheLibraryLeavesARetainedVolumeAlone(t *testing.T) {
	retained := releasedVolume("pvc-retained")
	retained.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
	retained.Finalizers = []string{PVFinalizer}
	released := releasedVolume("pvc-released")
	released.UID = "released-uid"
	bound := releasedVolume("pvc-bound")
	bound.UID = "bound-uid"
	bound.Status.Phase = v1.VolumeBound
	l := newLiveLibrary(t, []runtime.Object{retained, released, bound, newClass()}, liveOptions{addFinalizer: true})
	l.provisioner.refuseVolumes = true // the released PV stays, without a finalizer
	l.start(t)
	testutil.Eventually(t, 10*time.Second, "the finalizer off the retained PV and on the bound one", func() bool {
		return !slices.Contains(l.volumeOf(t, retained.Name).Finalizers, PVFinalizer) &&
			slices.Contains(l.volumeOf(t, bound.Name).Finalizers, PVFinalizer)
	})
	if deletes := l.provisioner.deletes(); len(deletes) != 0 {
		t.Fatalf("Delete called for %v", deletes)
	}
	if f := l.volumeOf(t, released.Name).Finalizers; len(f) != 0 {
		t.Fatalf("the library put finalizers %v on a Released PV", f)
	}
}

// The library asks ShouldDelete before it deletes a volume; a PV it was
// refused is deleted once handed back (RequeueVolume, as the recycle bin
// does at a kept volume's deadline), though its version is the same.
func TestARefusedVolumeWaitsUntilItIsHandedBack(t *testing.T) {
	pv := releasedVolume("pvc-kept")
	l := newLiveLibrary(t, []runtime.Object{pv, newClass()}, liveOptions{})
	l.provisioner.refuseVolumes = true
	l.start(t)
	// The library would delete the volume within this window.
	testutil.Consistently(t, 300*time.Millisecond, func() error {
		if deletes := l.provisioner.deletes(); len(deletes) != 0 {
			return fmt.Errorf("Delete called for %v while ShouldDelete refused", deletes)
		}
		return nil
	})
	l.provisioner.set(func(s *stubProvisioner) { s.refuseVolumes = false })
	l.adapter.RequeueVolume(l.volumeOf(t, pv.Name))
	testutil.Eventually(t, 10*time.Second, "the volume handed back deleted", func() bool {
		return len(l.provisioner.deletes()) == 1 && l.volumeOf(t, pv.Name) == nil
	})
}
