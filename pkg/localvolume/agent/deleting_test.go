package agent

import (
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// symlinkAtFinalizerRemoval records, for each patch that removes the
// symlink deleter finalizer, whether the symlink still existed.
func (e *env) symlinkAtFinalizerRemoval(path string) func() []bool {
	var mu sync.Mutex
	var seen []bool
	testutil.BeforeEach(e.Client, func(a k8stesting.Action) {
		p := string(a.(k8stesting.PatchAction).GetPatch())
		if strings.Contains(p, `"finalizers"`) && !strings.Contains(p, local.SymlinkDeleterFinalizer) {
			mu.Lock()
			seen = append(seen, e.host.Exists(path))
			mu.Unlock()
		}
	}, testutil.Verb("patch"), testutil.On("persistentvolumes"))
	return func() []bool {
		mu.Lock()
		defer mu.Unlock()
		return append([]bool(nil), seen...)
	}
}

// The owner is being deleted: the released PV is wiped and deleted, then
// loses its symlink, then its finalizer; nothing new is made.
func TestDeletingVolumeOfDeletedOwnerLosesSymlinkThenFinalizer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		owner []runtime.Object
	}{
		{"owner being deleted", []runtime.Object{newLocalVolume("lv", []string{"/dev/sdb"}, func(lv *localv1.LocalVolume) { deletingNow(lv) })}},
		{"owner gone", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, disk{kname: "/dev/sdb", id: "wwn-0x1"})
			e := newEnv(t, h, nil, tc.owner...)
			pv := e.agentPV(KindLocalVolume, "lv", "local-sc", "/dev/sdb", "wwn-0x1", released)
			path := pv.Spec.Local.Path
			e.createPV(pv)
			removals := e.symlinkAtFinalizerRemoval(path)
			e.start()
			eventually(t, "the PV gone", func() bool { _, ok := e.pv(pv.Name); return !ok })
			if h.Exists(path) {
				t.Error("the symlink is still there")
			}
			// A removal may be retried (a conflict with the agent's own
			// earlier write); none may come before the symlink is gone.
			if got := removals(); len(got) == 0 || slices.Contains(got, true) {
				t.Errorf("symlink present at finalizer removal: %v, want only false", got)
			}
			if n := h.wipeCount("/dev/sdb"); n != 1 {
				t.Errorf("wiped %d times, want 1", n)
			}
			// Discovery for the owner ran after the PV went: its deletion
			// queues the owner, and the resync a live one.
			key := ownerKey(KindLocalVolume, testNS, "lv")
			if tc.owner == nil {
				e.waitSyncs(key, 1)
			} else {
				e.nextSync(key)
			}
			if n := len(e.pvs()); n != 0 {
				t.Errorf("%d PVs after the owner went, want none", n)
			}
			if got := e.metric("symlinks_removed_total"); got != 1 {
				t.Errorf("symlinks_removed_total = %v, want 1", got)
			}
			if ev := e.Events.WithReason(ReasonSymlinkRemoved); len(ev) != 1 {
				t.Errorf("SymlinkRemoved events %q, want 1", ev)
			}
		})
	}
}

// The owner is alive: the PV being deleted keeps its symlink and loses its
// finalizer, and the disk comes back as a new PV.
func TestDeletingVolumeOfLiveOwnerKeepsSymlink(t *testing.T) {
	h, e := newOneDiskEnv(t)
	pv := e.agentPV(KindLocalVolume, "lv", "local-sc", "/dev/sdb", "wwn-0x1", func(pv *corev1.PersistentVolume) {
		deletingNow(pv)
	})
	path := pv.Spec.Local.Path
	e.createPV(pv)
	old := e.mustPV(pv.Name)
	removals := e.symlinkAtFinalizerRemoval(path)
	e.start()
	fresh := e.waitRecreated(pv.Name, string(old.UID))
	if got := h.Readlink(path); got != "/dev/disk/by-id/wwn-0x1" {
		t.Errorf("symlink -> %q, want kept", got)
	}
	// A resync from a cache that has not seen the first removal may try
	// again (the API refuses it: the patch is pinned to the old PV), so
	// what counts is that the link was there at every attempt.
	if got := removals(); len(got) == 0 || slices.Contains(got, false) {
		t.Errorf("symlink present at finalizer removal: %v, want true at every attempt", got)
	}
	if _, ok := fresh.Annotations[AnnotationWiped]; ok {
		t.Error("the new PV carries a wipe record")
	}
	if n := h.wipeCount("/dev/sdb"); n != 0 {
		t.Errorf("wiped %d times", n)
	}
	if got := e.metric("symlinks_removed_total"); got != 0 {
		t.Errorf("symlinks_removed_total = %v", got)
	}
}

// A PV being deleted while still bound keeps both: a pod may use the link.
func TestDeletingBoundVolumeWaits(t *testing.T) {
	h := newHost(t, disk{kname: "/dev/sdb", id: "wwn-0x1"})
	e := newEnv(t, h, nil)
	pv := e.agentPV(KindLocalVolume, "lv", "local-sc", "/dev/sdb", "wwn-0x1", func(pv *corev1.PersistentVolume) {
		pv.Status.Phase = corev1.VolumeBound
		deletingNow(pv)
	})
	e.createPV(pv)
	e.start()
	e.nextSync(volumeKey(pv.Name))
	got := e.mustPV(pv.Name)
	if len(got.Finalizers) != 1 || !h.Exists(pv.Spec.Local.Path) {
		t.Fatalf("bound PV lost its finalizer (%v) or symlink", got.Finalizers)
	}
	e.updatePV(pv.Name, func(pv *corev1.PersistentVolume) { pv.Status.Phase = corev1.VolumeReleased })
	eventually(t, "the PV gone", func() bool { _, ok := e.pv(pv.Name); return !ok })
	if h.Exists(pv.Spec.Local.Path) {
		t.Error("symlink of a PV whose owner is gone kept")
	}
}

// Something else than a symlink at the PV's path is never removed, and the
// finalizer still goes so the owner is not stuck.
func TestNonSymlinkIsNeverRemoved(t *testing.T) {
	h := newHost(t, disk{kname: "/dev/sdb", id: "wwn-0x1"})
	e := newEnv(t, h, nil)
	pv := e.agentPV(KindLocalVolume, "lv", "local-sc", "/dev/sdb", "wwn-0x1", func(pv *corev1.PersistentVolume) {
		pv.Status.Phase = corev1.VolumeAvailable
		deletingNow(pv)
	})
	path := pv.Spec.Local.Path
	if err := h.fs.Remove(path); err != nil {
		t.Fatal(err)
	}
	h.File(path, "precious")
	e.createPV(pv)
	e.start()
	eventually(t, "the PV gone", func() bool { _, ok := e.pv(pv.Name); return !ok })
	if !h.Exists(path) {
		t.Error("a regular file was removed")
	}
	if ev := e.Events.WithReason(ReasonSymlinkNotRemoved); len(ev) != 1 {
		t.Errorf("SymlinkNotRemoved events %q, want 1", ev)
	}
}
