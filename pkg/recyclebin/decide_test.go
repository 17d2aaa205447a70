package recyclebin

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var now = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

func releasedVolume(annotations map[string]string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-1", Annotations: annotations},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			ClaimRef:                      &v1.ObjectReference{Namespace: "apps", Name: "data", UID: "uid-1"},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeReleased},
	}
}

func TestDecide(t *testing.T) {
	later := now.Add(time.Hour).Format(time.RFC3339)
	earlier := now.Add(-time.Second).Format(time.RFC3339)
	deleting := releasedVolume(map[string]string{AnnRetainedUntil: later})
	deleting.DeletionTimestamp = &metav1.Time{Time: now}
	retainPolicy := releasedVolume(nil)
	retainPolicy.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
	bound := releasedVolume(nil)
	bound.Status.Phase = v1.VolumeBound
	// kept is protected: it says Retain, with Delete recorded.
	kept := func(recorded, until string) *v1.PersistentVolume {
		pv := releasedVolume(map[string]string{AnnRetainedUntil: until, AnnReclaimPolicy: recorded})
		pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
		return pv
	}

	cases := []struct {
		name      string
		pv        *v1.PersistentVolume
		retention time.Duration
		want      Decision
	}{
		{"retention off: deleted as today", releasedVolume(nil), 0, Decision{State: Delete}},
		{"retention on: kept, the deadline to record", releasedVolume(nil), 2 * time.Hour, Decision{State: Retain, Until: now.Add(2 * time.Hour)}},
		{"recorded, before the deadline: kept", releasedVolume(map[string]string{AnnRetainedUntil: later}), 0, Decision{State: Keep, Until: now.Add(time.Hour)}},
		{"recorded, the deadline passed: expired", releasedVolume(map[string]string{AnnRetainedUntil: earlier}), 2 * time.Hour, Decision{State: Expired, Until: now.Add(-time.Second)}},
		{"recorded, at the deadline: expired", releasedVolume(map[string]string{AnnRetainedUntil: now.Format(time.RFC3339)}), 0, Decision{State: Expired, Until: now}},
		{"a purge request: deleted now", releasedVolume(map[string]string{AnnRetainedUntil: later, AnnPurge: "true"}), time.Hour, Decision{State: Purge}},
		{"the PV object being deleted: deleted now", deleting, time.Hour, Decision{State: Purge}},
		{"reclaim policy Retain: not the bin's", retainPolicy, time.Hour, Decision{State: Delete}},
		{"not released: not the bin's", bound, time.Hour, Decision{State: Delete}},
		{"kept saying Retain, before the deadline: kept", kept("Delete", later), 0, Decision{State: Keep, Until: now.Add(time.Hour)}},
		{"kept saying Retain, the deadline passed: expired", kept("Delete", earlier), 0, Decision{State: Expired, Until: now.Add(-time.Second)}},
		{"Retain recorded: not the bin's", kept("Retain", earlier), time.Hour, Decision{State: Delete}},
		{"a recorded policy that names none: not the bin's, so kept", kept("delete", earlier), time.Hour, Decision{State: Delete}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decide(tc.pv, tc.retention, now)
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if got.State != tc.want.State || !got.Until.Equal(tc.want.Until) {
				t.Fatalf("Decide = %v until %v; want %v until %v", got.State, got.Until, tc.want.State, tc.want.Until)
			}
		})
	}
}

func TestADeadlineThatDoesNotParseKeepsTheVolume(t *testing.T) {
	got, err := Decide(releasedVolume(map[string]string{AnnRetainedUntil: "tomorrow"}), 0, now)
	if err == nil || !got.State.Holds() {
		t.Fatalf("Decide = %v, %v; want a holding state and an error", got.State, err)
	}
}

func TestTheRecordedDeadlineReadsBackAsDecided(t *testing.T) {
	pv := releasedVolume(nil)
	decided, err := Decide(pv, 90*time.Minute, now.Add(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	annotations, labels := Record(pv, decided.Until)
	if labels[LabelRetained] != "true" {
		t.Fatalf("labels = %v; want %s=true", labels, LabelRetained)
	}
	if from := annotations[AnnRetainedFrom]; from != "apps/data uid-1" {
		t.Fatalf("%s = %q; want the claim it came from", AnnRetainedFrom, from)
	}
	pv.Annotations = annotations
	readBack, err := Decide(pv, 0, now)
	if err != nil || readBack.State != Keep || !readBack.Until.Equal(decided.Until) {
		t.Fatalf("read back %v until %v, %v; want Keep until %v", readBack.State, readBack.Until, err, decided.Until)
	}
}

func TestOnlyRetainKeepAndRebindingHoldTheVolume(t *testing.T) {
	want := map[State]bool{Delete: false, Retain: true, Keep: true, Expired: false, Purge: false, Rebinding: true}
	for state, holds := range want {
		if state.Holds() != holds {
			t.Errorf("%v.Holds() = %v; want %v", state, state.Holds(), holds)
		}
	}
}
