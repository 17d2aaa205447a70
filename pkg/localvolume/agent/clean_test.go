package agent

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// pvActions lists the patch and delete actions sent for PV name, in order.
func (e *env) pvActions(name string) []k8stesting.Action {
	return testutil.Actions(e.Client.Actions(), testutil.On("persistentvolumes"), testutil.Named(name), testutil.Verb("patch", "delete"))
}

// waitRecreated waits until the PV name exists with another UID than old:
// the agent deleted the cleaned PV, let it go (its owner is alive) and
// offered the disk again.
func (e *env) waitRecreated(name string, old string) *corev1.PersistentVolume {
	e.t.Helper()
	var pv *corev1.PersistentVolume
	eventually(e.t, "PV "+name+" deleted and made again", func() bool {
		p, ok := e.pv(name)
		pv = p
		return ok && string(p.UID) != old && p.DeletionTimestamp == nil
	})
	return pv
}

// finishWithOneWipe starts a new agent and waits until it has deleted the
// released PV old, offered the disk again and synced the new PV; /dev/sdb
// must have been wiped once in all, by either agent.
func (e *env) finishWithOneWipe(old *corev1.PersistentVolume) {
	e.t.Helper()
	e.start()
	e.waitRecreated(old.Name, string(old.UID))
	e.nextSync(volumeKey(old.Name))
	if n := e.host.wipeCount("/dev/sdb"); n != 1 {
		e.t.Errorf("wiped %d times in all, want 1", n)
	}
}

func TestReleasedVolumeIsWipedOnceAndDeleted(t *testing.T) {
	h, e := newOneDiskEnv(t)
	old := e.startForPV()
	name := old.Name
	e.release(name)

	fresh := e.waitRecreated(name, string(old.UID))
	e.nextSync(volumeKey(name))
	if n := h.wipeCount("/dev/sdb"); n != 1 {
		t.Errorf("wiped %d times, want 1", n)
	}
	if _, ok := fresh.Annotations[AnnotationWipeStarted]; ok {
		t.Error("the new PV carries the old one's wipe record")
	}
	// wipe-started, then wiped, then a delete pinned to the wiped version.
	var sawStarted, sawWiped, sawDelete bool
	for _, a := range e.pvActions(name) {
		switch x := a.(type) {
		case k8stesting.PatchAction:
			p := string(x.GetPatch())
			switch {
			case contains(p, AnnotationWipeStarted):
				sawStarted = true
				if sawWiped || sawDelete {
					t.Error("wipe-started written after the wipe")
				}
				if !contains(p, `"resourceVersion"`) || !contains(p, `"uid"`) {
					t.Errorf("wipe-started patch not pinned: %s", p)
				}
			case contains(p, AnnotationWiped):
				sawWiped = true
				if !sawStarted {
					t.Error("wiped written before wipe-started")
				}
			}
		case k8stesting.DeleteAction:
			if sawDelete {
				continue
			}
			sawDelete = true
			pre := x.GetDeleteOptions().Preconditions
			if pre == nil || pre.UID == nil || *pre.UID != old.UID || pre.ResourceVersion == nil || *pre.ResourceVersion == "" {
				t.Errorf("delete without UID and resourceVersion preconditions: %+v", pre)
			}
			if !sawWiped {
				t.Error("deleted before the wipe was recorded")
			}
		}
	}
	if !sawStarted || !sawWiped || !sawDelete {
		t.Errorf("started %v, wiped %v, deleted %v; want all", sawStarted, sawWiped, sawDelete)
	}
	if got := e.metric("wipes_total{ok}"); got != 1 {
		t.Errorf("wipes_total{ok} = %v, want 1", got)
	}
	if got := e.metric("volumes_deleted_total"); got != 1 {
		t.Errorf("volumes_deleted_total = %v, want 1", got)
	}
	if ev := e.Events.WithReason(ReasonVolumeWiped); len(ev) != 1 {
		t.Errorf("VolumeWiped events %q, want 1", ev)
	}
	// The owner is alive: the symlink stays and still names the same disk.
	if got := h.Readlink(testRoot + "/local-sc/wwn-0x1"); got != "/dev/disk/by-id/wwn-0x1" {
		t.Errorf("symlink -> %q", got)
	}
}

// A restart after the wipe was recorded, before the PV was deleted, only
// deletes.
func TestRestartAfterWipedDoesNotWipeAgain(t *testing.T) {
	h, e := newOneDiskEnv(t)
	var failDelete atomic.Bool
	failDelete.Store(true)
	e.Client.PrependReactor("delete", "persistentvolumes", func(k8stesting.Action) (bool, runtime.Object, error) {
		if failDelete.Load() {
			return true, nil, context.DeadlineExceeded
		}
		return false, nil, nil
	})
	old := e.startForPV()
	name := old.Name
	e.release(name)
	eventually(t, "the wipe recorded", func() bool {
		_, ok := e.mustPV(name).Annotations[AnnotationWiped]
		return ok
	})
	e.nextSync(volumeKey(name)) // a retry of the failing delete
	if n := h.wipeCount("/dev/sdb"); n != 1 {
		t.Fatalf("wiped %d times while the delete failed, want 1", n)
	}

	e.stop()
	failDelete.Store(false)
	e.finishWithOneWipe(old)
	if got := e.metric("wipes_total{ok}"); got != 0 {
		t.Errorf("the new agent wiped: wipes_total{ok} = %v", got)
	}
}

// A restart in the middle of a wipe: the new agent wipes once more, then
// deletes. The PV stays until the agent deletes it.
func TestRestartAfterInterruptedWipe(t *testing.T) {
	h, e := newOneDiskEnv(t)
	entered := make(chan struct{}, 1)
	h.setWipeHook(func(ctx context.Context, _ string) error {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-ctx.Done() // the agent is killed mid-wipe
		return ctx.Err()
	})
	old := e.startForPV()
	name := old.Name
	h.format("/dev/sdb", "ext4")
	e.release(name)
	<-entered
	e.stop()

	pv := e.mustPV(name)
	if pv.UID != old.UID || pv.DeletionTimestamp != nil {
		t.Fatalf("PV lost or being deleted after the interrupted wipe: %+v", pv.ObjectMeta)
	}
	if pv.Annotations[AnnotationWipeStarted] != "/dev/sdb" {
		t.Errorf("wipe-started = %q, want /dev/sdb", pv.Annotations[AnnotationWipeStarted])
	}
	if _, ok := pv.Annotations[AnnotationWiped]; ok {
		t.Error("wiped recorded for a wipe that did not finish")
	}
	if n := h.wipeCount("/dev/sdb"); n != 0 {
		t.Fatalf("wipe counted: %d", n)
	}
	deletesBefore := len(e.pvActions(name))

	h.setWipeHook(nil)
	e.finishWithOneWipe(old)
	// The only delete is the new agent's, after its wipe was recorded.
	var sawWiped bool
	for _, a := range e.pvActions(name)[deletesBefore:] {
		switch x := a.(type) {
		case k8stesting.PatchAction:
			if contains(string(x.GetPatch()), AnnotationWiped) {
				sawWiped = true
			}
			if contains(string(x.GetPatch()), AnnotationWipeStarted) {
				t.Error("the resumed wipe wrote wipe-started again")
			}
		case k8stesting.DeleteAction:
			if !sawWiped {
				t.Error("deleted before the resumed wipe was recorded")
			}
			return
		}
	}
	t.Error("no delete after the restart")
}

func TestDeviceInUseAtWipeTimeIsNotWiped(t *testing.T) {
	h, e := newOneDiskEnv(t)
	old := e.startForPV()
	name := old.Name
	h.mount("/dev/sdb") // a pod still has it
	e.release(name)
	eventually(t, "a refusal", func() bool { return len(e.Events.WithReason(ReasonWipeRefused)) > 0 })
	e.nextSync(volumeKey(name)) // a retry of the refused wipe
	if n := h.wipeCount("/dev/sdb"); n != 0 {
		t.Fatalf("wiped a mounted device %d times", n)
	}
	pv := e.mustPV(name)
	if pv.DeletionTimestamp != nil || pv.UID != old.UID {
		t.Fatal("the PV of a device in use was deleted")
	}
	if _, ok := pv.Annotations[AnnotationWipeStarted]; ok {
		t.Error("wipe-started recorded for a refused wipe")
	}
	if ev := e.Events.WithReason(ReasonWipeRefused); len(ev) != 1 {
		t.Errorf("WipeRefused events %q, want 1", ev)
	}
	if got := e.metric("wipes_total{refused}"); got < 1 {
		t.Errorf("wipes_total{refused} = %v", got)
	}

	// Held open exclusively (device-mapper, a program) is refused too. Busy
	// before unmounted: a retry between the two must not find it free.
	h.setBusy("/dev/sdb", true)
	h.unmountAll()
	e.nextSync(volumeKey(name))
	if n := h.wipeCount("/dev/sdb"); n != 0 {
		t.Fatalf("wiped a busy device %d times", n)
	}

	h.setBusy("/dev/sdb", false)
	e.waitRecreated(name, string(old.UID))
	if n := h.wipeCount("/dev/sdb"); n != 1 {
		t.Errorf("wiped %d times once free, want 1", n)
	}
}

// A released PV is never wiped when it is being deleted already (even with
// a Delete policy) or when its policy is Retain. The one being deleted is
// let go and the disk offered again; the retained one is left alone.
func TestReleasedVolumeIsNotWiped(t *testing.T) {
	for _, tc := range []struct {
		name          string
		change        func(*corev1.PersistentVolume)
		wantRecreated bool
	}{
		{"being deleted", func(pv *corev1.PersistentVolume) { deletingNow(pv) }, true},
		{"retained", func(pv *corev1.PersistentVolume) {
			pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, e := newOneDiskEnv(t)
			pv := e.agentPV(KindLocalVolume, "lv", "local-sc", "/dev/sdb", "wwn-0x1", released, tc.change)
			e.createPV(pv)
			old := e.mustPV(pv.Name)
			e.start()
			if tc.wantRecreated {
				e.waitRecreated(pv.Name, string(old.UID))
			}
			e.nextSync(volumeKey(pv.Name))
			if n := h.wipeCount("/dev/sdb"); n != 0 {
				t.Errorf("wiped %d times", n)
			}
			got := e.mustPV(pv.Name)
			if recreated := got.UID != old.UID; recreated != tc.wantRecreated || got.DeletionTimestamp != nil {
				t.Errorf("PV recreated %v, being deleted %v; want recreated %v and not being deleted",
					recreated, got.DeletionTimestamp != nil, tc.wantRecreated)
			}
		})
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// A restart after a wipe that got through but whose record was not written:
// the device has no signature left, so the new agent records the wipe
// without wiping again, then deletes.
func TestRestartAfterFinishedButUnrecordedWipe(t *testing.T) {
	h, e := newOneDiskEnv(t)
	var failRecord atomic.Bool
	failRecord.Store(true)
	e.Client.PrependReactor("patch", "persistentvolumes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if failRecord.Load() && contains(string(a.(k8stesting.PatchAction).GetPatch()), AnnotationWiped) {
			return true, nil, context.DeadlineExceeded
		}
		return false, nil, nil
	})
	old := e.startForPV()
	name := old.Name
	h.format("/dev/sdb", "ext4")
	e.release(name)
	eventually(t, "the first wipe", func() bool { return h.wipeCount("/dev/sdb") >= 1 })
	e.stop()
	if _, ok := e.mustPV(name).Annotations[AnnotationWiped]; ok {
		t.Fatal("the wipe was recorded although recording failed")
	}

	// A finished wipe must not be repeated.
	failRecord.Store(false)
	e.finishWithOneWipe(old)
}
