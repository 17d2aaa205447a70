package claimprotection

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// The oldest hold's age counts from the held claim's deletion, which the
// claim keeps across restarts, and is 0 once nothing is held.
func TestOldestHoldAgeCountsFromTheDeletion(t *testing.T) {
	claim := heldClaim()
	deleted := metav1.NewTime(time.Now().Add(-time.Hour))
	claim.DeletionTimestamp = &deleted
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}})
	if got := e.metric(t, "oldest_hold_age_seconds"); got != 0 {
		t.Fatalf("oldest hold age %v before any hold, want 0", got)
	}
	e.calls.Begin(claim.UID)
	if err := e.sync(t, "db"); err != nil {
		t.Fatal(err)
	}
	if got := e.metric(t, "held_claims"); got != 1 {
		t.Fatalf("held claims %v, want 1", got)
	}
	if got := e.metric(t, "oldest_hold_age_seconds"); got < 3600 || got > 3600+60 {
		t.Fatalf("oldest hold age %v, want the hour since the deletion", got)
	}
	e.calls.End(types.UID("uid-db"), provisionstate.Final)
	if err := e.sync(t, "db"); err != nil {
		t.Fatal(err)
	}
	if got := e.metric(t, "oldest_hold_age_seconds"); got != 0 {
		t.Fatalf("oldest hold age %v after the release, want 0", got)
	}
}
