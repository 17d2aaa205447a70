package claimconditions

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// The running controller hears of every change, from the claim, the call
// tracker and the driver errors, and walks a claim through its states with
// one write each; the moments between two states (a node selected, the
// call not yet begun) are never written.
func TestRunningControllerWalksAClaimThroughItsStates(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "local")}, realClock: true, settle: 200 * time.Millisecond})
	e.run(t)
	uid := e.claim(t, "db").UID
	writes := 0
	expect := func(what, reason string) {
		t.Helper()
		writes++
		e.Eventually(t, what, func() bool { return e.reason(t, "db") == reason })
		if n := e.statusPatches(); n != writes {
			t.Fatalf("%s: %d writes, want %d: one per change", what, n, writes)
		}
	}

	expect("WaitingForFirstConsumer", ReasonWaitingForFirstConsumer)

	testutil.Update(t, e.api(), "db", func(c *v1.PersistentVolumeClaim) {
		c.Annotations = map[string]string{provisionstate.AnnSelectedNode: "node-1"}
	})
	e.calls.Begin(uid)
	expect("Provisioning once a call begins", ReasonProvisioning)

	e.errs.Record(uid, provisionstate.DriverError{Code: codes.Unavailable, Message: "busy"})
	e.calls.End(uid, provisionstate.Unknown)
	expect("DriverError once the driver refuses", ReasonDriverError)

	e.calls.Begin(uid)
	e.holds.set(string(uid), time.Now().Add(time.Hour))
	e.errs.Record(uid, provisionstate.DriverError{Code: codes.InvalidArgument, Message: "bad"})
	e.calls.End(uid, provisionstate.Final)
	expect("InfeasibleRetryDelayed once held back", ReasonInfeasibleRetryDelayed)

	e.holds.end(string(uid))
	e.calls.Begin(uid)
	e.errs.Forget(uid)
	e.calls.End(uid, provisionstate.Created)
	e.bind(t, "db")
	expect("no condition once Bound", "")

	// Whatever comes next, a Bound claim gets nothing (the handlers do
	// not even queue it).
	e.calls.Begin(uid)
	e.calls.End(uid, provisionstate.Created)
	e.mustSync(t, "db")
	if n := e.statusPatches(); n != writes {
		t.Errorf("%d writes, want %d", n, writes)
	}
}

// A claim deleted while its CreateVolume runs says so, and its driver
// error is forgotten once it is gone.
func TestDeletedClaimIsReportedThenForgotten(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast", withFinalizer)}})
	e.run(t)
	uid := e.claim(t, "db").UID
	e.errs.Record(uid, provisionstate.DriverError{Code: codes.Unavailable, Message: "busy"})
	e.Eventually(t, "DriverError", func() bool { return e.reason(t, "db") == ReasonDriverError })
	e.calls.Begin(uid)
	testutil.Delete(t, e.api(), "db")
	e.Eventually(t, "DeletionProtected", func() bool { return e.reason(t, "db") == ReasonDeletionProtected })

	e.calls.End(uid, provisionstate.Final)
	testutil.Update(t, e.api(), "db", func(c *v1.PersistentVolumeClaim) { c.Finalizers = nil })
	e.Eventually(t, "the deleted claim's driver error to be forgotten", func() bool {
		_, ok := e.errs.Last(uid)
		return !ok
	})
}

// Claims of other provisioners are never touched, nor, with
// --node-deployment, claims of other nodes or of no node yet.
func TestOnlyClaimsOfThisSidecarAreReported(t *testing.T) {
	other := newClass("other", storagev1.VolumeBindingImmediate)
	other.Provisioner = "other.example.com"
	foreign := newClaim("foreign", "other")
	foreign.Annotations = map[string]string{driverscope.AnnStorageProvisioner: "other.example.com"}
	mine := newClaim("mine", "fast")
	mine.Annotations[provisionstate.AnnSelectedNode] = "node-1"
	theirs := newClaim("theirs", "fast")
	theirs.Annotations[provisionstate.AnnSelectedNode] = "node-2"
	unplaced := newClaim("unplaced", "local")
	classes := []*storagev1.StorageClass{other, newClass("fast", storagev1.VolumeBindingImmediate), newClass("local", storagev1.VolumeBindingWaitForFirstConsumer)}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{foreign, mine, theirs, unplaced}, classes: classes, nodeName: "node-1"})
	for _, name := range []string{"foreign", "mine", "theirs", "unplaced"} {
		e.calls.Begin(e.claim(t, name).UID)
		e.mustSync(t, name)
	}
	for name, want := range map[string]string{"foreign": "", "mine": ReasonProvisioning, "theirs": "", "unplaced": ""} {
		if got := e.reason(t, name); got != want {
			t.Errorf("%s: reason %q, want %q", name, got, want)
		}
	}
}

// A claim created before its class is reported once the class exists.
func TestClaimIsReportedOnceItsClassExists(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "late")}})
	e.run(t)
	e.syncs.Wait(t, e.Timeout, keyOf("db"), 1)
	testutil.Create(t, e.Client.StorageV1().StorageClasses(), newClass("late", storagev1.VolumeBindingWaitForFirstConsumer))
	e.Eventually(t, "WaitingForFirstConsumer", func() bool { return e.reason(t, "db") == ReasonWaitingForFirstConsumer })
}
