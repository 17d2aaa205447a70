package rollback

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
)

// pinOf reads the resourceVersion and UID a patch carries.
func pinOf(t *testing.T, a k8stesting.Action) testutil.Pin {
	t.Helper()
	p, err := testutil.PinOf(a.(k8stesting.PatchAction).GetPatch())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The condition is removed from a Bound claim's status with one patch of
// the status pinned to the claim's version; the claim's other conditions
// and the rest of its status stay.
func TestConditionIsRemovedWithAPinnedStatusPatch(t *testing.T) {
	e := newEnv(withCondition(claim("data-0", v1.ClaimBound), claimconditions.ReasonProvisioning))
	before := e.claim(t, "data-0")

	r := e.run(t, ModeClear)

	f := only(t, r, kindClaim, "shop/data-0")
	requireAction(t, f, Cleared, "")
	if want := "condition Provisioning (Provisioning): stale, upstream never removes it"; f.What != want {
		t.Errorf("what %q, want %q", f.What, want)
	}
	writes := e.writes()
	if len(writes) != 1 || writes[0].GetVerb() != "patch" || writes[0].GetSubresource() != "status" {
		t.Fatalf("writes %v, want one patch of the status", writes)
	}
	if p := pinOf(t, writes[0]); p.ResourceVersion != before.ResourceVersion || p.UID != before.UID {
		t.Errorf("patch pinned to %+v, the claim is %s at %s", p, before.UID, before.ResourceVersion)
	}
	after := e.claim(t, "data-0")
	if len(after.Status.Conditions) != 1 || after.Status.Conditions[0].Type != v1.PersistentVolumeClaimResizing {
		t.Errorf("conditions %+v, want Resizing alone", after.Status.Conditions)
	}
	if after.Status.Phase != v1.ClaimBound || !after.Status.Capacity.Storage().Equal(*before.Status.Capacity.Storage()) {
		t.Errorf("status %+v, was %+v", after.Status, before.Status)
	}
}

// On a pending claim it goes too: upstream would leave it saying what this
// sidecar last saw, once it binds the claim and after.
func TestConditionOfAPendingClaimIsRemovedToo(t *testing.T) {
	e := newEnv(withCondition(claim("new", v1.ClaimPending), claimconditions.ReasonWaitingForFirstConsumer))
	r := e.run(t, ModeClear)
	f := only(t, r, kindClaim, "shop/new")
	requireAction(t, f, Cleared, "")
	if !strings.HasSuffix(f.What, "stale once upstream binds it") {
		t.Errorf("what %q", f.What)
	}
	if conds := claimconditions.Owned(e.claim(t, "new").Status.Conditions); conds != nil {
		t.Errorf("condition left: %+v", conds)
	}
}

// A claim with the finalizer and the condition gets two writes, the second
// pinned to the version the first made.
func TestSecondWriteIsPinnedToTheFirstOnesVersion(t *testing.T) {
	e := newEnv(withCondition(protected(claim("data-0", v1.ClaimBound)), claimconditions.ReasonProvisioning))
	pins := recordPins(t, e)
	r := e.run(t, ModeClear)
	for _, f := range r.Findings {
		requireAction(t, f, Cleared, "")
	}
	if len(*pins) != 2 {
		t.Fatalf("writes %v, want an update and a status patch", e.writes())
	}
	first, second := (*pins)[0], (*pins)[1]
	if first.sent != first.stored || second.sent != second.stored || second.sent == first.sent {
		t.Errorf("writes pinned to %+v, %+v: the second must carry the version the first made", first, second)
	}
	after := e.claim(t, "data-0")
	if claimconditions.Owned(after.Status.Conditions) != nil || len(after.Finalizers) != 2 {
		t.Errorf("claim after: finalizers %q, conditions %+v", after.Finalizers, after.Status.Conditions)
	}
}

// Upstream's RBAC grants no write of a claim's status: the refusal names
// the manifest that does, and the claim needs the operator.
func TestForbiddenStatusPatchNeedsYou(t *testing.T) {
	e := newEnv(withCondition(claim("data-0", v1.ClaimBound), claimconditions.ReasonProvisioning))
	testutil.FailNext(e.client, -1, apierrors.NewForbidden(v1.Resource("persistentvolumeclaims/status"), "data-0", errors.New("RBAC")),
		testutil.Verb("patch"), testutil.On("persistentvolumeclaims"))
	r := e.run(t, ModeClear)
	requireAction(t, only(t, r, kindClaim, "shop/data-0"), NeedsYou, "could not clear it: the RBAC rules must allow patch on persistentvolumeclaims/status (deploy/kubernetes/rbac-claim-conditions.yaml)")
	if r.Verdict.Ready {
		t.Error("ready")
	}
}
