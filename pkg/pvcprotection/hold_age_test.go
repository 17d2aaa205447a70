package pvcprotection

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The oldest hold's age counts from the held claim's deletion.
func TestOldestHoldAgeCountsFromTheDeletion(t *testing.T) {
	claim := newClaim("data")
	at := metav1.NewTime(time.Now().Add(-time.Hour))
	claim.DeletionTimestamp = &at
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, pods: []*v1.Pod{newPod("p1", testNode, "data")}})
	if got := e.metric("oldest_hold_age_seconds"); got != 0 {
		t.Fatalf("oldest hold age %v before any hold, want 0", got)
	}
	e.mustSync("data")
	if got := e.metric("held_claims"); got != 1 {
		t.Fatalf("held claims %v, want 1", got)
	}
	if got := e.metric("oldest_hold_age_seconds"); got < 3600 || got > 3600+60 {
		t.Fatalf("oldest hold age %v, want the hour since the deletion", got)
	}
}
