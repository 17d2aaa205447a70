package claimconditions

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
)

// When the sidecar stops serving claims, the condition goes from every
// claim of its driver, pending or Bound, with one pinned status patch each,
// and nothing else of the claim's status changes; claims of other drivers
// keep theirs.
func TestHandOffRemovesTheConditionFromTheClaimsOfThisDriverOnly(t *testing.T) {
	pending := newClaim("db", "fast", withCondition(ReasonProvisioning, msgProvisioning))
	pending.Status.Conditions = append(pending.Status.Conditions, v1.PersistentVolumeClaimCondition{Type: v1.PersistentVolumeClaimResizing, Status: v1.ConditionTrue})
	bound := newClaim("logs", "fast", withCondition(ReasonDriverError, "..."))
	bound.Status.Phase = v1.ClaimBound
	bound.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}
	other := newClaim("cache", "other", withCondition(ReasonProvisioning, msgProvisioning))
	other.Annotations = map[string]string{driverscope.AnnStorageProvisioner: "other.example.com"}
	plain := newClaim("plain", "fast")
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{pending, bound, other, plain}, trim: true})

	if removed := e.ctrl.HandOff(context.Background()); removed != 2 {
		t.Errorf("removed %d conditions; want 2", removed)
	}
	for _, name := range []string{"db", "logs"} {
		if c := e.condition(t, name); c != nil {
			t.Errorf("claim %s keeps %+v", name, c)
		}
	}
	if c := e.condition(t, "cache"); c == nil {
		t.Error("another driver's claim lost its condition")
	}
	if got := e.claim(t, "db").Status.Conditions; len(got) != 1 || got[0].Type != v1.PersistentVolumeClaimResizing {
		t.Errorf("conditions of db = %+v; want the resizer's kept", got)
	}
	if got := e.claim(t, "logs").Status; got.Phase != v1.ClaimBound || got.Capacity.Storage().String() != "1Gi" {
		t.Errorf("status of logs = %+v; want its phase and capacity kept", got)
	}
	if n := e.statusPatches(); n != 2 {
		t.Errorf("%d status patches; want one per claim carrying the condition", n)
	}
}

func TestHandOffStopsWhenItsTimeIsUp(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast", withCondition(ReasonProvisioning, msgProvisioning))}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if removed := e.ctrl.HandOff(ctx); removed != 0 || e.statusPatches() != 0 {
		t.Errorf("removed %d with %d writes after the deadline; want none", removed, e.statusPatches())
	}
}

// Claim protection's hand-off writes the same claims meanwhile: a removal
// that conflicts reads the claim again and is made on the fresh copy.
func TestHandOffRemovesTheConditionAfterAConflict(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{newClaim("db", "fast", withCondition(ReasonProvisioning, msgProvisioning))}})
	testutil.FailNext(e.Client, 1, apierrors.NewConflict(v1.Resource("persistentvolumeclaims"), "db", errors.New("the object has been modified")),
		testutil.Verb("patch"), testutil.On("persistentvolumeclaims"))
	if removed := e.ctrl.HandOff(context.Background()); removed != 1 {
		t.Errorf("removed %d after a conflict; want 1", removed)
	}
	if c := e.condition(t, "db"); c != nil {
		t.Errorf("claim db keeps %+v", c)
	}
}
