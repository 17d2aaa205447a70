package pvprotection

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The oldest hold's age counts from the held PV's deletion.
func TestOldestHoldAgeCountsFromTheDeletion(t *testing.T) {
	deletedAnHourAgo := func(pv *v1.PersistentVolume) {
		at := metav1.NewTime(time.Now().Add(-time.Hour))
		pv.DeletionTimestamp = &at
	}
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv", protected, deletedAnHourAgo, boundTo("ns", "db"))}})
	if got := e.metric(t, "oldest_hold_age_seconds"); got != 0 {
		t.Fatalf("oldest hold age %v before any hold, want 0", got)
	}
	if err := e.sync(t, "pv"); err != nil {
		t.Fatal(err)
	}
	if got := e.metric(t, "oldest_hold_age_seconds"); got < 3600 || got > 3600+60 {
		t.Fatalf("oldest hold age %v, want the hour since the deletion", got)
	}
}
