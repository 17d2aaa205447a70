package claimprotection

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// A ClusterRole without update on claims: the removal fails, the finalizer
// stays (nothing is released unwritten), and the claim says which rule is
// missing.
func TestRefusedRemovalTellsTheClaimTheMissingRule(t *testing.T) {
	claim := heldClaim()
	claim.Spec.VolumeName = "pvc-uid-db"
	claim.Status.Phase = v1.ClaimBound
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, volumes: []*v1.PersistentVolume{pvOf(claim)}})
	testutil.FailNext(e.Client, -1, apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, "db", nil),
		testutil.Verb("update"), testutil.On("persistentvolumeclaims"))
	if err := e.sync(t, "db"); !apierrors.IsForbidden(err) {
		t.Fatalf("err = %v, want the refusal", err)
	}
	if !has(e.claim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) {
		t.Fatal("the finalizer went without a write")
	}
	ev := e.Events.Drain()
	if len(ev) != 1 || !strings.HasPrefix(ev[0], "Warning "+ReasonFinalizerWriteForbidden+" ") ||
		!strings.Contains(ev[0], "must allow update on PersistentVolumeClaim") {
		t.Errorf("events %q, want one naming the missing rule", ev)
	}
	if got := e.metric(t, "finalizers_removed_total"); got != 0 {
		t.Errorf("finalizers removed = %v", got)
	}
}
