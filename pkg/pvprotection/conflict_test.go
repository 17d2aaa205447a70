package pvprotection

import (
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

var pvResource = schema.GroupResource{Resource: "persistentvolumes"}

func conflict() error {
	return apierrors.NewConflict(pvResource, "pv", nil)
}

func TestConflictRequeuesWithoutErrorLog(t *testing.T) {
	limiter := testutil.InstantRetries[string]()
	e := newEnv(t, setup{
		volumes: []*v1.PersistentVolume{newPV("pv", protected, testutil.Deleting(), testutil.WithVolumePhase(v1.VolumeReleased))},
		limiter: limiter,
	})
	testutil.FailNext(e.Client, 3, conflict(), pvPatch...)
	e.ctrl.loop.Add("pv")
	for i := 1; i <= 3; i++ {
		e.ctrl.loop.ProcessNext(e.Ctx)
		if err := e.syncs.Of("pv")[i-1]; !apierrors.IsConflict(err) {
			t.Fatalf("sync %d: %v, want the conflict", i, err)
		}
		if got := limiter.NumRequeues("pv"); got != i {
			t.Fatalf("after conflict %d: requeues = %d, want %d", i, got, i)
		}
		if !e.hasFinalizer(t, "pv") {
			t.Fatal("finalizer gone although the patch failed")
		}
	}
	// The rate-limited retry is queued again by itself, and now goes through.
	e.ctrl.loop.ProcessNext(e.Ctx)
	if e.hasFinalizer(t, "pv") {
		t.Fatal("finalizer still there after the retry")
	}
	if got := limiter.NumRequeues("pv"); got != 0 {
		t.Errorf("requeues = %d after success, want 0 (forgotten)", got)
	}
	if got := e.patches(); got != 4 {
		t.Errorf("patches = %d, want 4", got)
	}
	if logs := e.Logs.Errors(); len(logs) != 0 {
		t.Errorf("conflicts logged as errors: %v", logs)
	}
	if got := e.metric(t, "finalizers_removed_total"); got != 1 {
		t.Errorf("finalizers_removed_total = %v, want 1: failed patches do not count", got)
	}
}

// The counterpart: a failure that is not a conflict is worth an error, so
// the check above can see one.
func TestOtherFailureIsLoggedAsError(t *testing.T) {
	limiter := testutil.InstantRetries[string]()
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv")}, limiter: limiter})
	testutil.FailNext(e.Client, 1, apierrors.NewInternalError(errors.New("etcd unavailable")), pvPatch...)
	e.ctrl.loop.Add("pv")
	e.ctrl.loop.ProcessNext(e.Ctx)
	if got := limiter.NumRequeues("pv"); got != 1 {
		t.Fatalf("requeues = %d, want 1", got)
	}
	if logs := e.Logs.Errors(); len(logs) != 1 {
		t.Fatalf("error logs = %v, want one", logs)
	}
	e.ctrl.loop.ProcessNext(e.Ctx)
	if !e.hasFinalizer(t, "pv") {
		t.Fatal("finalizer not added on the retry")
	}
}

func TestConflictWhileRunningIsRetried(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv")}, limiter: testutil.InstantRetries[string]()})
	testutil.FailNext(e.Client, 5, conflict(), pvPatch...)
	e.run(t)
	e.Eventually(t, "the finalizer", func() bool { return e.hasFinalizer(t, "pv") })
	if got := e.patches(); got != 6 {
		t.Errorf("patches = %d, want 6 (5 conflicts, then the write)", got)
	}
	if logs := e.Logs.Errors(); len(logs) != 0 {
		t.Errorf("conflicts logged as errors: %v", logs)
	}
}
