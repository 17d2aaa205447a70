package pvprotection

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// The oldest hold's age counts from the held PV's deletion.
func TestOldestHoldAgeCountsFromTheDeletion(t *testing.T) {
	deletedAnHourAgo := testutil.DeletingSince(time.Now().Add(-time.Hour))
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newPV("pv", protected, deletedAnHourAgo, testutil.BoundTo("ns", "db", ""))}})
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
