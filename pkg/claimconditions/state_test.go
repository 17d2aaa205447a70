package claimconditions

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

var holdEnd = time.Date(2026, 1, 2, 3, 9, 5, 0, time.UTC)

// Each state, from the facts that make it, with the message a user reads.
func TestEachStateFromItsFacts(t *testing.T) {
	wffc := newClass("local", storagev1.VolumeBindingWaitForFirstConsumer)
	outOfRange := provisionstate.DriverError{Code: codes.OutOfRange, Message: "requested 2147483648 bytes, the maximum volume size is 1073741824"}
	badPool := provisionstate.DriverError{Code: codes.InvalidArgument, Message: `unknown pool "gold" in parameter pool`}
	deleting := func(f facts) facts {
		now := metav1.Now()
		f.claim.DeletionTimestamp = &now
		return f
	}
	for _, tc := range []struct {
		name  string
		facts facts
		want  State
	}{{
		name:  "waiting for the first consumer",
		facts: facts{claim: newClaim("db", "local"), class: wffc},
		want: State{ReasonWaitingForFirstConsumer,
			"Waiting for a pod that uses the claim to be scheduled: StorageClass local binds volumes with WaitForFirstConsumer"},
	}, {
		name:  "a CreateVolume runs",
		facts: facts{claim: newClaim("db", "fast"), call: provisionstate.Calling},
		want:  State{ReasonProvisioning, "CreateVolume is running; the claim is bound once the driver has made the volume"},
	}, {
		name:  "the volume is made and its PV being saved",
		facts: facts{claim: newClaim("db", "fast"), call: provisionstate.Created},
		want:  State{ReasonProvisioning, msgProvisioning},
	}, {
		name:  "the driver refused",
		facts: facts{claim: newClaim("db", "fast"), call: provisionstate.Final, lastErr: outOfRange, hasErr: true},
		want: State{ReasonDriverError,
			"CreateVolume failed, retrying with back-off: rpc error: code = OutOfRange desc = requested 2147483648 bytes, the maximum volume size is 1073741824"},
	}, {
		name:  "held back after an infeasible refusal",
		facts: facts{claim: newClaim("db", "fast"), call: provisionstate.Final, lastErr: badPool, hasErr: true, held: true, heldUntil: holdEnd},
		want: State{ReasonInfeasibleRetryDelayed,
			`The driver refused CreateVolume as infeasible; retries are delayed until 2026-01-02T03:09:05Z: rpc error: code = InvalidArgument desc = unknown pool "gold" in parameter pool`},
	}, {
		name:  "deleted while provisioning protection holds it",
		facts: deleting(facts{claim: newClaim("db", "fast", withFinalizer), call: provisionstate.Calling}),
		want:  State{ReasonDeletionProtected, "Deletion waits: a CreateVolume for this claim may still be running; its volume will be deleted first"},
	}, {
		name:  "deleted without a hold of ours",
		facts: deleting(facts{claim: newClaim("db", "fast", withCondition(ReasonProvisioning, msgProvisioning))}),
		want:  State{},
	}, {
		name:  "an Immediate claim nothing is known of yet",
		facts: facts{claim: newClaim("db", "fast")},
		want:  State{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := desired(tc.facts); got != tc.want {
				t.Errorf("desired = %+v\nwant      %+v", got, tc.want)
			}
		})
	}
}

// A Bound claim never gets the condition and loses the one it has,
// whatever else is known of it.
func TestBoundClaimsCarryNothing(t *testing.T) {
	for _, phase := range []v1.PersistentVolumeClaimPhase{v1.ClaimBound, v1.ClaimLost} {
		claim := newClaim("db", "fast", withCondition(ReasonProvisioning, msgProvisioning))
		claim.Status.Phase = phase
		claim.Spec.VolumeName = "pvc-1"
		f := facts{claim: claim, carried: conditionOf(claim), call: provisionstate.Created, hasErr: true,
			lastErr: provisionstate.DriverError{Code: codes.Unavailable}, held: true, heldUntil: holdEnd}
		if got := desired(f); !got.None() {
			t.Errorf("%s claim: desired %+v, want no condition", phase, got)
		}
	}
}

// The transitions that must not write: a retry of a refused call, the end
// of an infeasible hold before its retry's answer, a restarted process
// that knows nothing, a claim the binder is binding.
func TestStatesThatStand(t *testing.T) {
	refused := newClaim("db", "fast", withCondition(ReasonDriverError, "CreateVolume failed, retrying with back-off: rpc error: code = Unavailable desc = busy"))
	infeasible := newClaim("db", "fast", withCondition(ReasonInfeasibleRetryDelayed, "The driver refused CreateVolume as infeasible; retries are delayed until 2026-01-02T03:09:05Z"))
	provisioning := newClaim("db", "fast", withCondition(ReasonProvisioning, msgProvisioning))
	binding := newClaim("db", "fast", withCondition(ReasonProvisioning, msgProvisioning))
	binding.Spec.VolumeName = "pvc-1"
	badPool := provisionstate.DriverError{Code: codes.InvalidArgument, Message: "unknown pool"}
	for _, tc := range []struct {
		name  string
		facts facts
	}{
		{"a retry of a call refused by an earlier process", facts{claim: refused, call: provisionstate.Calling}},
		{"a restarted process knows nothing of the refusal", facts{claim: refused}},
		{"the infeasible hold ended; the retry runs", facts{claim: infeasible, call: provisionstate.Calling, hasErr: true, lastErr: badPool}},
		{"the infeasible hold ended; the retry is not yet sent", facts{claim: infeasible, call: provisionstate.Final, hasErr: true, lastErr: badPool}},
		{"a restarted process knows nothing of the hold", facts{claim: infeasible}},
		{"a restarted process knows nothing of the call", facts{claim: provisioning}},
		{"the binder is binding", facts{claim: binding, call: provisionstate.Created}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.facts.carried = conditionOf(tc.facts.claim)
			want := stateOf(tc.facts.carried)
			if got := desired(tc.facts); got != want {
				t.Errorf("desired %+v, want what the claim carries: %+v", got, want)
			}
		})
	}
}

// The transitions that must write.
func TestStatesThatChange(t *testing.T) {
	wffc := newClass("local", storagev1.VolumeBindingWaitForFirstConsumer)
	waiting := newClaim("db", "local", withCondition(ReasonWaitingForFirstConsumer, "Waiting ..."))
	scheduled := waiting.DeepCopy()
	scheduled.Annotations = map[string]string{provisionstate.AnnSelectedNode: "node-1"}
	provisioning := newClaim("db", "fast", withCondition(ReasonProvisioning, msgProvisioning))
	refused := newClaim("db", "fast", withCondition(ReasonDriverError, "CreateVolume failed, retrying with back-off: rpc error: code = Unavailable desc = busy"))
	for _, tc := range []struct {
		name  string
		facts facts
		want  string
	}{
		{"a node is selected and the call starts", facts{claim: scheduled, class: wffc, call: provisionstate.Calling}, ReasonProvisioning},
		{"a node is selected, no call yet", facts{claim: scheduled, class: wffc}, ""},
		{"the call is refused", facts{claim: provisioning, call: provisionstate.Final, hasErr: true,
			lastErr: provisionstate.DriverError{Code: codes.Unavailable, Message: "busy"}}, ReasonDriverError},
		{"a retry is refused as infeasible", facts{claim: refused, call: provisionstate.Final, hasErr: true,
			lastErr: provisionstate.DriverError{Code: codes.InvalidArgument, Message: "bad"}, held: true, heldUntil: holdEnd}, ReasonInfeasibleRetryDelayed},
		{"the infeasible hold ended and the retry was refused otherwise", facts{
			claim: newClaim("db", "fast", withCondition(ReasonInfeasibleRetryDelayed, "...")), call: provisionstate.Final, hasErr: true,
			lastErr: provisionstate.DriverError{Code: codes.Unavailable, Message: "busy"}}, ReasonDriverError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.facts.carried = conditionOf(tc.facts.claim)
			if got := desired(tc.facts); got.Reason != tc.want {
				t.Errorf("desired %+v, want reason %q", got, tc.want)
			}
		})
	}
	// Another refusal of the same reason changes the message only.
	got := desired(facts{claim: refused, carried: conditionOf(refused), hasErr: true, lastErr: provisionstate.DriverError{Code: codes.Internal, Message: "disk on fire"}})
	if got.Reason != ReasonDriverError || !strings.Contains(got.Message, "code = Internal desc = disk on fire") {
		t.Errorf("desired %+v, want the new refusal", got)
	}
}

func TestLongDriverMessagesAreCut(t *testing.T) {
	long := strings.Repeat("é", maxDriverMessage) // two bytes each
	msg := driverErrorMessage(provisionstate.DriverError{Code: codes.Internal, Message: long})
	if len(msg) > maxDriverMessage+200 || !strings.HasSuffix(msg, "é...") {
		t.Errorf("message of %d bytes ending %q", len(msg), msg[len(msg)-8:])
	}
}
