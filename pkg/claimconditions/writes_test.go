package claimconditions

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// Each change of state is one write, and a sync that finds the claim as it
// should be writes nothing.
func TestOneWritePerChangeAndNoneWhenUnchanged(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast")}})
	uid := e.claim(t, "db").UID

	e.mustSync(t, "db")
	if n := e.statusPatches(); n != 0 {
		t.Fatalf("%d writes for a claim nothing is known of", n)
	}
	steps := []struct {
		do   func()
		want string
	}{
		{func() { e.calls.Begin(uid) }, ReasonProvisioning},
		{func() {
			e.errs.Record(uid, provisionstate.DriverError{Code: codes.Unavailable, Message: "busy"})
			e.calls.End(uid, provisionstate.Unknown)
		}, ReasonDriverError},
		{func() { e.calls.Begin(uid) }, ReasonDriverError}, // the retry: no change
		{func() {
			e.holds.set(string(uid), holdEnd)
			e.errs.Record(uid, provisionstate.DriverError{Code: codes.InvalidArgument, Message: "bad"})
			e.calls.End(uid, provisionstate.Final)
		}, ReasonInfeasibleRetryDelayed},
	}
	writes := 0
	for i, step := range steps {
		before := e.reason(t, "db")
		step.do()
		e.mustSync(t, "db")
		if before != step.want {
			writes++
		}
		if got := e.reason(t, "db"); got != step.want {
			t.Fatalf("step %d: reason %q, want %q", i, got, step.want)
		}
		if n := e.statusPatches(); n != writes {
			t.Fatalf("step %d: %d writes, want %d: one per change", i, n, writes)
		}
		// Again, with nothing new: nothing written.
		e.mustSync(t, "db")
		if n := e.statusPatches(); n != writes {
			t.Fatalf("step %d: a sync without change wrote (%d writes)", i, n)
		}
	}
	if got := e.writes(t, ReasonInfeasibleRetryDelayed, ResultSuccess); got != 1 {
		t.Errorf("writes_total{reason=InfeasibleRetryDelayed,result=success} = %v, want 1", got)
	}
}

// A state is written only once it has lasted Settle: a CreateVolume that
// ends quickly, into a Bound claim, costs no write at all.
func TestShortStatesAreNeverWritten(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast")}, settle: settle})
	uid := e.claim(t, "db").UID

	e.calls.Begin(uid)
	res := e.mustSync(t, "db")
	if res.RequeueAfter != settle {
		t.Errorf("requeue after %v, want the settle time %v", res.RequeueAfter, settle)
	}
	e.clock.Step(settle / 2)
	if res := e.mustSync(t, "db"); res.RequeueAfter != settle/2 {
		t.Errorf("requeue after %v, want the rest of the settle time %v", res.RequeueAfter, settle/2)
	}
	e.calls.End(uid, provisionstate.Created)
	e.bind(t, "db")
	e.clock.Step(settle)
	e.mustSync(t, "db")
	if n := e.statusPatches(); n != 0 {
		t.Errorf("%d writes for a claim provisioned within the settle time, want 0", n)
	}
}

// A state that lasts is written once the settle time has passed since it
// began; a new state starts the wait again.
func TestLastingStatesAreWrittenAfterTheSettleTime(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast")}, settle: settle})
	uid := e.claim(t, "db").UID

	e.calls.Begin(uid)
	e.mustSync(t, "db")
	e.clock.Step(settle - time.Millisecond)
	e.errs.Record(uid, provisionstate.DriverError{Code: codes.Internal, Message: "boom"})
	e.calls.End(uid, provisionstate.Final)
	if res := e.mustSync(t, "db"); res.RequeueAfter != settle || e.statusPatches() != 0 {
		t.Fatalf("requeue %v after %d writes: a new state must wait the settle time again", res.RequeueAfter, e.statusPatches())
	}
	e.clock.Step(settle)
	e.mustSync(t, "db")
	if got := e.reason(t, "db"); got != ReasonDriverError || e.statusPatches() != 1 {
		t.Errorf("reason %q after %d writes, want %s in one", got, e.statusPatches(), ReasonDriverError)
	}
}

// Once Bound the condition goes, after claim protection's finalizer
// removal (so that the two writes never conflict), and at once when there
// is none; the grace only bounds the wait.
func TestClearedOnceBound(t *testing.T) {
	protected := newClaim("db", "fast", withCondition(ReasonProvisioning, msgProvisioning), withFinalizer)
	plain := newClaim("logs", "fast", withCondition(ReasonDriverError, "..."))
	stuck := newClaim("cache", "fast", withCondition(ReasonProvisioning, msgProvisioning), withFinalizer)
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{protected, plain, stuck}, settle: settle})
	for _, name := range []string{"db", "logs", "cache"} {
		e.bind(t, name)
	}

	if res := e.mustSync(t, "db"); res.RequeueAfter != DefaultBoundGrace || e.statusPatches() != 0 {
		t.Fatalf("requeue %v after %d writes: the removal must wait for the finalizer's", res.RequeueAfter, e.statusPatches())
	}
	testutil.Update(t, e.api(), "db", func(c *v1.PersistentVolumeClaim) { c.Finalizers = nil })
	e.mustSync(t, "db")
	if c := e.condition(t, "db"); c != nil {
		t.Errorf("Bound claim keeps %+v", c)
	}

	e.mustSync(t, "logs")
	if c := e.condition(t, "logs"); c != nil {
		t.Errorf("Bound claim without the finalizer keeps %+v", c)
	}

	e.mustSync(t, "cache")
	e.clock.Step(DefaultBoundGrace)
	e.mustSync(t, "cache")
	if c := e.condition(t, "cache"); c != nil {
		t.Errorf("Bound claim whose finalizer stays keeps %+v past the grace", c)
	}
	if got := e.writes(t, ReasonCleared, ResultSuccess); got != 3 {
		t.Errorf("writes_total{reason=Cleared,result=success} = %v, want 3", got)
	}
}

// A Bound claim is never given the condition, whatever this process knows
// of it, and its driver error is forgotten.
func TestBoundClaimsAreNeverGivenTheCondition(t *testing.T) {
	claim := newClaim("db", "fast")
	claim.Spec.VolumeName = "pvc-1"
	claim.Status.Phase = v1.ClaimBound
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}})
	uid := e.claim(t, "db").UID
	e.calls.Begin(uid)
	e.calls.End(uid, provisionstate.Created)
	e.errs.Record(uid, provisionstate.DriverError{Code: codes.Unavailable})
	e.mustSync(t, "db")
	if n := e.statusPatches(); n != 0 {
		t.Errorf("%d writes to a Bound claim", n)
	}
	if _, ok := e.errs.Last(uid); ok {
		t.Error("the Bound claim's driver error was kept")
	}
}

// lastTransitionTime says since when the claim has been in this state: a
// new reason sets it, a new message of the same reason keeps it.
func TestTransitionTimeFollowsTheReason(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast")}})
	uid := e.claim(t, "db").UID
	e.errs.Record(uid, provisionstate.DriverError{Code: codes.Unavailable, Message: "busy"})
	e.mustSync(t, "db")
	first := e.condition(t, "db").LastTransitionTime

	e.clock.Step(time.Minute)
	e.errs.Record(uid, provisionstate.DriverError{Code: codes.Internal, Message: "boom"})
	e.mustSync(t, "db")
	c := e.condition(t, "db")
	if !strings.Contains(c.Message, "boom") || !c.LastTransitionTime.Equal(&first) {
		t.Errorf("message %q, lastTransitionTime %v; want the new message and the first time %v", c.Message, c.LastTransitionTime, first)
	}

	e.clock.Step(time.Minute)
	e.holds.set(string(uid), holdEnd)
	e.errs.Record(uid, provisionstate.DriverError{Code: codes.InvalidArgument, Message: "bad"})
	e.mustSync(t, "db")
	c = e.condition(t, "db")
	if c.Reason != ReasonInfeasibleRetryDelayed || !c.LastTransitionTime.Time.Equal(e.clock.Now()) {
		t.Errorf("reason %s at %v, want %s at %v", c.Reason, c.LastTransitionTime, ReasonInfeasibleRetryDelayed, e.clock.Now())
	}
}

// A claim deleted while a CreateVolume may run says why it stays.
func TestDeletionProtectedSaysWhy(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast", withFinalizer)}})
	uid := e.claim(t, "db").UID
	e.calls.Begin(uid)
	e.mustSync(t, "db")
	testutil.Delete(t, e.api(), "db")
	e.mustSync(t, "db")
	c := e.condition(t, "db")
	if c == nil || c.Reason != ReasonDeletionProtected || c.Message != msgDeletionProtected {
		t.Errorf("condition %+v, want %s", c, ReasonDeletionProtected)
	}
}

// A refused write names the manifest that grants it.
func TestRefusedWriteNamesTheManifest(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast")}})
	e.errs.Record(e.claim(t, "db").UID, provisionstate.DriverError{Code: codes.Internal})
	testutil.FailNext(e.Client, 1, apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, "db", nil), statusPatch...)
	_, err := e.sync(t, "db")
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "rbac-claim-conditions.yaml") {
		t.Errorf("err = %v, want a refusal naming the manifest", err)
	}
	if got := e.writes(t, ReasonDriverError, ResultError); got != 1 {
		t.Errorf("writes_total{result=error} = %v, want 1", got)
	}
}

// Infeasible holds end in time: the claim is looked at again just after.
func TestInfeasibleHoldIsLookedAtAgainAtItsEnd(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast")}})
	uid := e.claim(t, "db").UID
	e.holds.set(string(uid), e.clock.Now().Add(5*time.Minute))
	e.errs.Record(uid, provisionstate.DriverError{Code: codes.InvalidArgument, Message: "bad"})
	if res := e.mustSync(t, "db"); res.RequeueAfter != 5*time.Minute+time.Second {
		t.Errorf("requeue after %v, want just after the hold's end", res.RequeueAfter)
	}
}
