package rollback

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

var claimsResource = v1.SchemeGroupVersion.WithResource("persistentvolumeclaims")

// everything is a cluster with one of each finding.
func everything() []runtime.Object {
	danger := keptPV("pvc-danger")
	danger.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimDelete
	return []runtime.Object{
		protected(claim("bound", v1.ClaimBound), provisionstate.AnnVolumeNameTemplate),
		protected(claim("pending", v1.ClaimPending)),
		deleting(protected(claim("deleting", v1.ClaimPending))),
		withCondition(claim("waiting", v1.ClaimPending), claimconditions.ReasonWaitingForFirstConsumer),
		withCondition(protected(claim("both", v1.ClaimBound)), claimconditions.ReasonProvisioning),
		keptPV("pvc-kept"), danger,
		class("tagged", map[string]string{"tags": "team=${pvc.labels['team']}"}),
	}
}

// The report mode reads and never writes.
func TestReportModeWritesNothing(t *testing.T) {
	e := newEnv(everything()...)
	r := e.run(t, ModeReport)
	if w := e.writes(); len(w) != 0 {
		t.Errorf("the report mode wrote: %v", w)
	}
	for _, name := range []string{"shop/bound", "shop/waiting"} {
		requireAction(t, only(t, r, kindClaim, name), WouldClear, "")
	}
	if r.Verdict.Ready {
		t.Error("ready with claims to clear")
	}
}

// pinned is a write's resourceVersion and the object's at that moment.
type pinned struct{ sent, stored string }

// recordPins records every claim write of e's fake, before the fake API
// server answers it.
func recordPins(t *testing.T, e *env) *[]pinned {
	var pins []pinned
	testutil.BeforeEach(e.client, func(a k8stesting.Action) {
		var name, sent string
		switch a := a.(type) {
		case k8stesting.UpdateAction:
			obj := a.GetObject().(*v1.PersistentVolumeClaim)
			name, sent = obj.Name, obj.ResourceVersion
		case k8stesting.PatchAction:
			name, sent = a.GetName(), pinOf(t, a).ResourceVersion
		default:
			return
		}
		stored, err := e.client.Tracker().Get(claimsResource, a.GetNamespace(), name)
		if err != nil {
			t.Error(err)
			return
		}
		pins = append(pins, pinned{sent: sent, stored: stored.(*v1.PersistentVolumeClaim).ResourceVersion})
	}, testutil.On("persistentvolumeclaims"))
	return &pins
}

// Each write of the clear mode carries the version of the object it was
// decided on, the second write of a claim the version the first made.
func TestClearModeWritesArePinned(t *testing.T) {
	e := newEnv(everything()...)
	pins := recordPins(t, e)
	e.run(t, ModeClear)
	if len(*pins) != 4 {
		t.Fatalf("%d writes, want 4 (bound, waiting, and both twice): %v", len(*pins), e.writes())
	}
	for i, p := range *pins {
		if p.sent == "" || p.sent != p.stored {
			t.Errorf("write %d pinned to %q, the claim was at %q", i, p.sent, p.stored)
		}
	}
}

// bumpOnce makes the first write of verb to a claim meet a newer version:
// change is applied to the stored claim first, as by another writer.
func bumpOnce(t *testing.T, e *env, verb string, change func(*v1.PersistentVolumeClaim)) {
	testutil.BeforeNext(e.client, func(k8stesting.Action) {
		// Through the tracker: the fake's client would wait for this
		// reaction to end.
		obj, err := e.client.Tracker().Get(claimsResource, "shop", "data-0")
		if err != nil {
			t.Error(err)
			return
		}
		claim := obj.(*v1.PersistentVolumeClaim).DeepCopy()
		change(claim)
		claim.ResourceVersion += "0"
		if err := e.client.Tracker().Update(claimsResource, claim, "shop"); err != nil {
			t.Error(err)
		}
	}, testutil.Verb(verb), testutil.On("persistentvolumeclaims"))
}

// A conflict is read again and decided again: the other writer's change
// stays, and the clearing is made on top of it.
func TestConflictIsReadAgainAndDecidedAgain(t *testing.T) {
	e := newEnv(protected(claim("data-0", v1.ClaimBound)))
	bumpOnce(t, e, "update", func(c *v1.PersistentVolumeClaim) { c.Labels["tier"] = "gold" })
	r := e.run(t, ModeClear)
	requireAction(t, only(t, r, kindClaim, "shop/data-0"), Cleared, "")
	after := e.claim(t, "data-0")
	if after.Labels["tier"] != "gold" || len(after.Finalizers) != 2 {
		t.Errorf("labels %q, finalizers %q", after.Labels, after.Finalizers)
	}
}

// What changed meanwhile may leave nothing to clear.
func TestConflictThatSettlesItClearsNothing(t *testing.T) {
	e := newEnv(withCondition(claim("data-0", v1.ClaimBound), claimconditions.ReasonProvisioning))
	bumpOnce(t, e, "patch", func(c *v1.PersistentVolumeClaim) { c.Status.Conditions = c.Status.Conditions[:1] })
	r := e.run(t, ModeClear)
	requireAction(t, only(t, r, kindClaim, "shop/data-0"), NoAction, "it changed meanwhile, and has nothing left to clear")
	if !r.Verdict.Ready {
		t.Errorf("not ready: %s", r.Verdict.Line())
	}
}

// A second conflict is reported, not retried for ever.
func TestSecondConflictNeedsYou(t *testing.T) {
	e := newEnv(protected(claim("data-0", v1.ClaimBound)))
	testutil.FailNext(e.client, -1, apierrors.NewConflict(v1.Resource("persistentvolumeclaims"), "data-0", nil),
		testutil.Verb("update"), testutil.On("persistentvolumeclaims"))
	r := e.run(t, ModeClear)
	requireAction(t, only(t, r, kindClaim, "shop/data-0"), NeedsYou, "it changed twice while being cleared: run this again")
	if n := len(e.writes()); n != 2 {
		t.Errorf("%d writes, want 2", n)
	}
}
