package recyclebin

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWithRetentionOffAReleasedVolumeIsNotHeldAndCostsNoRequest(t *testing.T) {
	e := newEnv(t, setup{classes: []*storagev1.StorageClass{newClass("")}})
	pv := newVolume("pvc-1")
	e.watching(t)
	before := e.requests()

	if e.bin.Holds(e.Ctx, pv) {
		t.Error("Holds = true with --volume-retention=0 and a class that does not say; want the volume deleted as today")
	}
	if d, err := e.bin.Decide(pv); err != nil || d.State != Delete {
		t.Errorf("Decide = %v, %v; want Delete", d.State, err)
	}
	if n := e.requests() - before; n != 0 {
		t.Errorf("the bin sent %d requests: %v; it must answer from the caches", n, e.Client.Actions()[before:])
	}
}

func TestAClassAnnotationTurnsRetentionOnWithTheFlagOff(t *testing.T) {
	e := newEnv(t, setup{retention: 0, classes: []*storagev1.StorageClass{newClass("72h")}})
	pv := newVolume("pvc-1")

	if !e.bin.Holds(e.Ctx, pv) {
		t.Fatal("Holds = false; the class's 72h must keep the volume")
	}
	d, err := e.bin.Decide(pv)
	if want := now.Add(72 * time.Hour); err != nil || d.State != Retain || !d.Until.Equal(want) {
		t.Errorf("Decide = %v until %v, %v; want Retain until %v (whole seconds)", d.State, d.Until, err, want)
	}
}

func TestAClassAnnotationThatDoesNotParseHoldsTheVolume(t *testing.T) {
	for _, value := range []string{"3 days", "-1h", ""} {
		for _, flag := range []time.Duration{0, time.Hour} {
			t.Run(value+"/flag "+flag.String(), func(t *testing.T) {
				class := newClass("")
				class.Annotations[AnnRetention] = value
				e := newEnv(t, setup{retention: flag, classes: []*storagev1.StorageClass{class}})
				pv := newVolume("pvc-1")

				if !e.bin.Holds(e.Ctx, pv) {
					t.Error("Holds = false; a typo in the class must never delete data")
				}
				if d, err := e.bin.Decide(pv); err == nil || !d.State.Holds() {
					t.Errorf("Decide = %v, %v; want a holding state and an error naming the annotation", d.State, err)
				}
			})
		}
	}
}

func TestAVolumeGivenBackToAClaimStillThereIsRebinding(t *testing.T) {
	e := newEnv(t, setup{retention: 72 * time.Hour, claims: []*v1.PersistentVolumeClaim{theOldClaim()}})
	pv := newVolume("pvc-1", givenBackToTheOldClaim)

	if !e.bin.Holds(e.Ctx, pv) {
		t.Fatal("Holds = false for a PV whose claim exists; it may be about to be bound")
	}
	if d, err := e.bin.Decide(pv); err != nil || d.State != Rebinding || !d.Until.IsZero() {
		t.Errorf("Decide = %v until %v, %v; want Rebinding, with no deadline to record", d.State, d.Until, err)
	}
}

func TestAClaimOfTheSameNameIsNotTheVolumesClaim(t *testing.T) {
	other := theOldClaim()
	other.UID = "uid-of-a-new-claim"
	deleting := theOldClaim()
	deleting.DeletionTimestamp = &metav1.Time{Time: start}
	deleting.Finalizers = []string{"kubernetes.io/pvc-protection"}
	for name, claim := range map[string]*v1.PersistentVolumeClaim{"another UID": other, "being deleted": deleting} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, setup{retention: 72 * time.Hour, claims: []*v1.PersistentVolumeClaim{claim}})
			if d, err := e.bin.Decide(newVolume("pvc-1", givenBackToTheOldClaim)); err != nil || d.State != Retain {
				t.Errorf("Decide = %v, %v; want Retain: the volume's claim is gone", d.State, err)
			}
		})
	}
}

// docs/recycle-bin.md: "The retention in force at release counts: changing
// the flag or the class later moves no recorded deadline", and a purge
// request or the PV's deletion deletes the volume at once.
func TestAClassBrokenAfterReleaseMovesNoRecordedDeadline(t *testing.T) {
	e := newEnv(t, setup{classes: []*storagev1.StorageClass{newClass("3 days")}})
	deleting := newVolume("pvc-3", recordedUntil(now.Add(time.Hour)))
	deleting.DeletionTimestamp = &metav1.Time{Time: start}
	cases := []struct {
		name string
		pv   *v1.PersistentVolume
		want State
	}{
		{"before the deadline", newVolume("pvc-1", recordedUntil(now.Add(time.Hour))), Keep},
		{"the deadline passed", newVolume("pvc-2", recordedUntil(now.Add(-time.Hour))), Expired},
		{"the PV being deleted", deleting, Purge},
		{"a purge request", newVolume("pvc-4", recordedUntil(now.Add(time.Hour)), purgeRequested), Purge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if d, err := e.bin.Decide(tc.pv); err != nil || d.State != tc.want {
				t.Errorf("Decide = %v, %v; want %v: the deadline recorded at release decides", d.State, err, tc.want)
			}
		})
	}
}

// A release is decided as without the bin even while the claim cache still
// shows the claim: the sidecar's claim watch may lag behind its deletion,
// and kube-controller-manager released the PV because the claim is gone.
func TestAReleasedVolumeWhoseClaimTheCacheStillShowsIsNotHeld(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{theOldClaim()}})
	if e.bin.Holds(e.Ctx, newVolume("pvc-1")) {
		t.Fatal("Holds = true with retention off; the release must be decided as without the bin")
	}
}
