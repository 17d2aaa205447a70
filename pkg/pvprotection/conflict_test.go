package pvprotection

import (
	"errors"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

var pvResource = schema.GroupResource{Resource: "persistentvolumes"}

// failPatches makes the next n patches of PVs fail with err(); later ones go
// through to the fake API server.
func failPatches(e *env, n int32, err func() error) {
	left := atomic.Int32{}
	left.Store(n)
	e.client.PrependReactor("patch", "persistentvolumes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if left.Add(-1) < 0 {
			return false, nil, nil
		}
		return true, nil, err()
	})
}

func conflict() error {
	return apierrors.NewConflict(pvResource, "pv", nil)
}

func TestConflictRequeuesWithoutErrorLog(t *testing.T) {
	limiter := testutil.InstantRetries[string]()
	e := newEnv(t, setup{
		volumes: []*v1.PersistentVolume{newPV("pv", protected, deleting, phase(v1.VolumeReleased))},
		limiter: limiter,
	})
	failPatches(e, 3, conflict)
	e.ctrl.loop.Add("pv")
	for i := 1; i <= 3; i++ {
		e.ctrl.loop.ProcessNext(e.ctx)
		if err := e.syncs.Of("pv")[i-1]; !apierrors.IsConflict(err) {
			t.Fatalf("sync %d: %v, want the conflict", i, err)
		}
		if got := limiter.NumRequeues("pv"); got != i {
			t.Fatalf("after conflict %d: requeues = %d, want %d", i, got, i)
		}
		if !hasFinalizer(e.pv(t, "pv")) {
			t.Fatal("finalizer gone although the patch failed")
		}
	}
	// The rate-limited retry is queued again by itself, and now goes through.
	e.ctrl.loop.ProcessNext(e.ctx)
	if hasFinalizer(e.pv(t, "pv")) {
		t.Fatal("finalizer still there after the retry")
	}
	if got := limiter.NumRequeues("pv"); got != 0 {
		t.Errorf("requeues = %d after success, want 0 (forgotten)", got)
	}
	if got := e.patches(); got != 4 {
		t.Errorf("patches = %d, want 4", got)
	}
	if logs := e.errorLogs(); len(logs) != 0 {
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
	failPatches(e, 1, func() error { return apierrors.NewInternalError(errors.New("etcd unavailable")) })
	e.ctrl.loop.Add("pv")
	e.ctrl.loop.ProcessNext(e.ctx)
	if got := limiter.NumRequeues("pv"); got != 1 {
		t.Fatalf("requeues = %d, want 1", got)
	}
	if logs := e.errorLogs(); len(logs) != 1 {
		t.Fatalf("error logs = %v, want one", logs)
	}
	e.ctrl.loop.ProcessNext(e.ctx)
	if !hasFinalizer(e.pv(t, "pv")) {
		t.Fatal("finalizer not added on the retry")
	}
}

func TestConflictWhileRunningIsRetried(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv")}, limiter: testutil.InstantRetries[string]()})
	failPatches(e, 5, conflict)
	e.run(t)
	eventually(t, "the finalizer", func() bool { return hasFinalizer(e.pv(t, "pv")) })
	if got := e.patches(); got != 6 {
		t.Errorf("patches = %d, want 6 (5 conflicts, then the write)", got)
	}
	if logs := e.errorLogs(); len(logs) != 0 {
		t.Errorf("conflicts logged as errors: %v", logs)
	}
}
