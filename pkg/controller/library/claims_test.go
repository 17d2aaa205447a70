package library

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// Library v10's claims as the project relies on them, run live.

// Claim protection reads the library's index instead of its own: it must be
// there, under this name, by claim UID.
func TestTheLibraryIndexesClaimsByUID(t *testing.T) {
	claim := newClaim("data")
	claim.Spec.VolumeName = "pvc-1"
	l := newLiveLibrary(t, []runtime.Object{claim, newClass()}, liveOptions{})
	indexer := l.Informers.Core().V1().PersistentVolumeClaims().Informer().GetIndexer()
	if _, ok := indexer.GetIndexers()[ClaimUIDIndex]; !ok {
		t.Fatalf("the library registered no index %q: %v", ClaimUIDIndex, indexer.GetIndexers())
	}
	l.start(t)
	objs, err := indexer.ByIndex(ClaimUIDIndex, string(claim.UID))
	if err != nil || len(objs) != 1 || objs[0].(*v1.PersistentVolumeClaim).Name != claim.Name {
		t.Fatalf("claims of UID %s: %v, %v", claim.UID, objs, err)
	}
}

// An IgnoredError ends the library's attempt: no event of its own, no
// retry, one failure in its metrics. A claim handed back (RequeueClaim, as
// when an infeasible hold ends) is tried again at once, as a resync of it
// would, though its version is the same.
func TestAnIgnoredClaimWaitsUntilItIsHandedBack(t *testing.T) {
	l := newLiveLibrary(t, []runtime.Object{newClaim("db"), newClass()}, liveOptions{})
	l.provisioner.provision = func(context.Context, libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
		return nil, libcontroller.ProvisioningFinished, &libcontroller.IgnoredError{Reason: "held"}
	}
	l.start(t)
	testutil.Eventually(t, 10*time.Second, "the first Provision", func() bool { return len(l.provisioner.provisions()) == 1 })
	// The library retries a failure after 10ms: a retry would show.
	testutil.Consistently(t, 300*time.Millisecond, func() error {
		if n := len(l.provisioner.provisions()); n != 1 {
			return fmt.Errorf("%d Provision calls after an IgnoredError, want 1", n)
		}
		return nil
	})
	if v := testutil.Metric(t, l.Registry, "test_persistentvolumeclaim_provision_failed_total", "class", testClass); v != 1 {
		t.Fatalf("the library counted %v failed attempts, want 1", v)
	}
	for _, ev := range l.events(t) {
		if ev.Reason == ReasonProvisioningFailed {
			t.Fatalf("the library posted %s %q for an IgnoredError", ev.Reason, ev.Message)
		}
	}

	l.provisioner.set(func(s *stubProvisioner) { s.provision = nil })
	l.adapter.RequeueClaim(klog.FromContext(l.Ctx), cache.ObjectName{Namespace: testNamespace, Name: "db"}, testClaimUID)
	testutil.Eventually(t, 10*time.Second, "the PV of the claim handed back", func() bool {
		_, ok := testutil.Find(t, l.Client.CoreV1().PersistentVolumes(), "pvc-"+testClaimUID)
		return ok
	})
}

// A claim ShouldProvision refuses is left alone: no Provision, no event.
func TestAClaimTheQualifierRefusesIsLeftAlone(t *testing.T) {
	l := newLiveLibrary(t, []runtime.Object{newClaim("db"), newClass()}, liveOptions{})
	l.provisioner.refuseClaims = true
	l.start(t)
	testutil.Consistently(t, 300*time.Millisecond, func() error {
		if n := len(l.provisioner.provisions()); n != 0 {
			return fmt.Errorf("%d Provision calls of a refused claim", n)
		}
		return nil
	})
	if events := l.events(t); len(events) != 0 {
		t.Fatalf("events %v for a refused claim", events)
	}
}

// The library takes any update of a claim as a reason to try it again at
// once, past its back-off: the sidecar's own protection writes would do
// that where upstream makes none, so the Adapter does not pass them on.
// Another change still brings the claim back at once.
func TestAClaimUpdateSkipsTheBackOffUnlessItIsTheSidecarsOwnWrite(t *testing.T) {
	for _, plain := range []bool{true, false} {
		l := newLiveLibrary(t, []runtime.Object{newClaim("db"), newClass()}, liveOptions{plain: plain, backOff: time.Hour})
		l.provisioner.provision = func(context.Context, libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
			return nil, libcontroller.ProvisioningFinished, errors.New("backend busy")
		}
		l.start(t)
		testutil.Eventually(t, 10*time.Second, "the first Provision", func() bool { return len(l.provisioner.provisions()) == 1 })

		update := func(change func(*v1.PersistentVolumeClaim)) {
			testutil.Update(t, l.Client.CoreV1().PersistentVolumeClaims(testNamespace), "db", change)
		}
		update(func(c *v1.PersistentVolumeClaim) {
			c.Finalizers = append(c.Finalizers, provisionstate.ProvisioningProtectionFinalizer)
		})
		if plain {
			testutil.Eventually(t, 10*time.Second, "library v10 to try again on the finalizer write", func() bool {
				return len(l.provisioner.provisions()) == 2
			})
			continue
		}
		testutil.Consistently(t, 300*time.Millisecond, func() error {
			if n := len(l.provisioner.provisions()); n != 1 {
				return fmt.Errorf("%d Provision calls within the back-off after the sidecar's own write, want 1", n)
			}
			return nil
		})
		update(func(c *v1.PersistentVolumeClaim) { c.Labels = map[string]string{"team": "db"} })
		testutil.Eventually(t, 10*time.Second, "the library to try again on another change", func() bool {
			return len(l.provisioner.provisions()) == 2
		})
	}
}

// scheduledClaim is a claim of a WaitForFirstConsumer class the scheduler
// placed on node.
func scheduledClaim(node string) (*v1.PersistentVolumeClaim, *storagev1.StorageClass) {
	claim := newClaim("db")
	claim.Annotations[provisionstate.AnnSelectedNode] = node
	return claim, testutil.NewClass(testClass, testDriver, testutil.WithBindingMode(storagev1.VolumeBindingWaitForFirstConsumer))
}

// The library sends a claim back to the scheduler with an update, not a
// patch, of the copy it gave Provision, less the selected-node annotation:
// the Adapter redoes that update when the provisioner's finalizer write
// made the copy stale (reschedule.go).
func TestTheLibraryReschedulesWithAnUpdateOfItsCopy(t *testing.T) {
	claim, class := scheduledClaim("node-1")
	l := newLiveLibrary(t, []runtime.Object{claim, class}, liveOptions{})
	l.provisioner.provision = func(context.Context, libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
		return nil, libcontroller.ProvisioningReschedule, errors.New("no space on node-1")
	}
	l.start(t)
	testutil.Eventually(t, 10*time.Second, "the claim sent back to the scheduler", func() bool {
		_, selected := l.claim(t, "db").Annotations[provisionstate.AnnSelectedNode]
		return !selected
	})
	given := l.provisioner.provisions()[0].PVC
	var writes []k8stesting.Action
	for _, a := range l.Client.Actions() {
		if a.GetResource().Resource == "persistentvolumeclaims" && (a.GetVerb() == "update" || a.GetVerb() == "patch") {
			writes = append(writes, a)
		}
	}
	if len(writes) != 1 {
		t.Fatalf("claim writes %v, want the library's one update", writes)
	}
	update, ok := writes[0].(k8stesting.UpdateAction)
	if !ok {
		t.Fatalf("the library sent %s, want an update", writes[0].GetVerb())
	}
	if rv := update.GetObject().(*v1.PersistentVolumeClaim).ResourceVersion; rv != given.ResourceVersion {
		t.Fatalf("the library updated version %s, want the one it gave Provision, %s", rv, given.ResourceVersion)
	}
	if n := len(l.provisioner.provisions()); n != 1 {
		t.Fatalf("%d Provision calls, want 1", n)
	}
}

// Library v10 looks the selected node up before Provision and reschedules
// the claim when the Node is missing, where upstream's v13 hands Provision
// the name; through the Adapter's lister the node is never missing.
func TestTheLibraryLooksTheSelectedNodeUpThroughItsLister(t *testing.T) {
	for _, plain := range []bool{true, false} {
		claim, class := scheduledClaim("node-gone")
		l := newLiveLibrary(t, []runtime.Object{claim, class}, liveOptions{plain: plain})
		l.start(t)
		if plain {
			ev := l.event(t, ReasonProvisioningFailed)
			if want := `node "node-gone" not found`; ev.Message != want || ev.Type != v1.EventTypeWarning {
				t.Errorf("library v10's event %s %q, want Warning %q", ev.Type, ev.Message, want)
			}
			testutil.Eventually(t, 10*time.Second, "the claim sent back to the scheduler", func() bool {
				_, selected := l.claim(t, "db").Annotations[provisionstate.AnnSelectedNode]
				return !selected
			})
			if n := len(l.provisioner.provisions()); n != 0 {
				t.Errorf("library v10 called Provision %d times without the node", n)
			}
			continue
		}
		testutil.Eventually(t, 10*time.Second, "Provision", func() bool { return len(l.provisioner.provisions()) == 1 })
		node := l.provisioner.provisions()[0].SelectedNode
		if node == nil || node.Name != "node-gone" || len(node.Labels) != 0 {
			t.Errorf("Provision got selected node %v, want node-gone without labels", node)
		}
	}
}

// A failed attempt is retried at the pace of the library's RateLimiter
// (upstream's back-off), without end: FailedProvisionThreshold(0).
func TestAFailureIsRetriedAtTheBackOffsPace(t *testing.T) {
	for _, tc := range []struct {
		backOff time.Duration
		atLeast int
	}{{10 * time.Millisecond, 3}, {time.Hour, 1}} {
		l := newLiveLibrary(t, []runtime.Object{newClaim("db"), newClass()}, liveOptions{backOff: tc.backOff})
		l.provisioner.provision = func(context.Context, libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
			return nil, libcontroller.ProvisioningFinished, errors.New("backend busy")
		}
		l.start(t)
		testutil.Eventually(t, 10*time.Second, "the retries", func() bool { return len(l.provisioner.provisions()) >= tc.atLeast })
		if tc.atLeast > 1 {
			continue
		}
		testutil.Consistently(t, 300*time.Millisecond, func() error {
			if n := len(l.provisioner.provisions()); n != 1 {
				return fmt.Errorf("%d Provision calls within a back-off of an hour, want 1", n)
			}
			return nil
		})
	}
}

// A claim whose volume may be in the making (ProvisioningInBackground) is
// tried again even once the claim is gone, from the library's own copy:
// the provisioner finds a volume made wrongly again by its name.
func TestAClaimProvisionedInBackgroundIsRetriedOnceItIsGone(t *testing.T) {
	l := newLiveLibrary(t, []runtime.Object{newClaim("db"), newClass()}, liveOptions{})
	l.provisioner.provision = func(context.Context, libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
		return nil, libcontroller.ProvisioningInBackground, errors.New("cleanup of volume pvc-1 failed, volume is orphaned")
	}
	l.start(t)
	testutil.Eventually(t, 10*time.Second, "the first Provision", func() bool { return len(l.provisioner.provisions()) >= 1 })
	testutil.Delete(t, l.Client.CoreV1().PersistentVolumeClaims(testNamespace), "db")
	testutil.Eventually(t, 10*time.Second, "the claim gone from the cache", func() bool {
		_, err := l.Informers.Core().V1().PersistentVolumeClaims().Lister().PersistentVolumeClaims(testNamespace).Get("db")
		return err != nil
	})
	calls := len(l.provisioner.provisions())
	testutil.Eventually(t, 10*time.Second, "a Provision of the claim gone", func() bool { return len(l.provisioner.provisions()) > calls })
}

// The library names a claim's PV pvc-<claim UID> and leaves a claim whose
// PV of that name it has cached.
func TestTheLibraryNamesThePVAfterTheClaimUID(t *testing.T) {
	l := newLiveLibrary(t, []runtime.Object{newClaim("db"), newClass()}, liveOptions{})
	l.provisioner.refuseVolumes = true
	l.start(t)
	testutil.Eventually(t, 10*time.Second, "Provision", func() bool { return len(l.provisioner.provisions()) == 1 })
	if name := l.provisioner.provisions()[0].PVName; name != "pvc-"+testClaimUID {
		t.Fatalf("PV name %q, want pvc-<claim UID>", name)
	}

	claim := newClaim("again")
	claim.UID = "uid-again"
	pv := releasedVolume("pvc-uid-again")
	pv.UID = "pv-again"
	l = newLiveLibrary(t, []runtime.Object{claim, newClass(), pv}, liveOptions{})
	l.provisioner.refuseVolumes = true
	l.start(t)
	testutil.Consistently(t, 300*time.Millisecond, func() error {
		if n := len(l.provisioner.provisions()); n != 0 {
			return fmt.Errorf("%d Provision calls of a claim whose PV exists", n)
		}
		return nil
	})
}
