package claimprotection

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

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
	e.client.PrependReactor("update", "persistentvolumeclaims", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, "db", nil)
	})
	if err := e.sync(t, "db"); !apierrors.IsForbidden(err) {
		t.Fatalf("err = %v, want the refusal", err)
	}
	if !has(e.claim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) {
		t.Fatal("the finalizer went without a write")
	}
	ev := e.events()
	if len(ev) != 1 || !strings.HasPrefix(ev[0], "Warning "+ReasonFinalizerWriteForbidden+" ") ||
		!strings.Contains(ev[0], "must allow update on PersistentVolumeClaim") {
		t.Errorf("events %q, want one naming the missing rule", ev)
	}
	if got := e.metric(t, "finalizers_removed_total"); got != 0 {
		t.Errorf("finalizers removed = %v", got)
	}
}
