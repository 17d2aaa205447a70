package recyclebin

import (
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestAReleasedVolumeIsRecordedInOneWritePinnedToItsVersion(t *testing.T) {
	before := newVolume("pvc-1")
	e := newEnv(t, setup{retention: 72 * time.Hour, volumes: []*v1.PersistentVolume{before}})
	before = e.pv(t, "pvc-1") // with the resourceVersion the API server gave it
	e.run(t)

	until := "2026-11-30T10:00:00Z" // start + 72h, cut to the second
	e.Eventually(t, "the deadline on the PV", func() bool { return e.pv(t, "pvc-1").Annotations[AnnRetainedUntil] != "" })
	e.resync(t, "pvc-1")

	e.expectOneWritePinnedTo(t, before)
	expectOnly(t, before, e.pv(t, "pvc-1"), func(pv *v1.PersistentVolume) {
		pv.Annotations[AnnRetainedUntil] = until
		pv.Annotations[AnnRetainedFrom] = "apps/data uid-claim-1"
		pv.Labels[LabelRetained] = "true"
		// Nothing that does not know the bin deletes a Retain PV.
		pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
		pv.Annotations[AnnReclaimPolicy] = "Delete"
		// The library's finalizer goes in the same write, as the library
		// would remove it from a Retain PV with a write of its own.
		pv.Finalizers = []string{"kubernetes.io/pv-protection", FinalizerKept}
	})
}

func TestARecordedVolumeIsToldAndRequeuedAtItsDeadline(t *testing.T) {
	e := newEnv(t, setup{retention: 72 * time.Hour, volumes: []*v1.PersistentVolume{newVolume("pvc-1")}})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)

	deadline := now.Add(72 * time.Hour)
	if got, want := e.results.of("pvc-1")[0].RequeueAfter, deadline.Sub(start); got != want {
		t.Errorf("the sync that recorded the deadline requeues after %v; want %v, at the deadline", got, want)
	}
	e.Eventually(t, "the event", func() bool { return len(e.events.with(ReasonRetained)) > 0 })
	e.resync(t, "pvc-1")
	want := []string{onVolume("pvc-1", "Normal VolumeRetained Volume kept until 2026-11-30T10:00:00Z (72h0m0s) instead of deleted; "+
		"give it back with the annotation provisioner.storage.kubernetes.io/restore-to, or purge it with provisioner.storage.kubernetes.io/purge=true")}
	if got := e.events.all(); !slices.Equal(got, want) {
		t.Errorf("events = %q; want %q", got, want)
	}
	for i, r := range e.results.of("pvc-1") {
		if r.RequeueAfter != deadline.Sub(start) {
			t.Errorf("sync %d requeues after %v; want %v: the recorded deadline holds", i+1, r.RequeueAfter, deadline.Sub(start))
		}
	}
}

func TestAKeptVolumeIsHandedOverWhenItsRequeueComesAtTheDeadline(t *testing.T) {
	deadline := now.Add(time.Hour)
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1", recordedUntil(deadline))}})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)
	if r := e.results.of("pvc-1")[0]; r.RequeueAfter != deadline.Sub(start) {
		t.Fatalf("requeue after %v; want %v", r.RequeueAfter, deadline.Sub(start))
	}
	if n := len(e.handOvers.all()); n != 0 {
		t.Fatalf("handed over %d times before the deadline", n)
	}

	e.clock.SetTime(deadline)
	e.resync(t, "pvc-1") // the requeue: the policy is given back
	e.resync(t, "pvc-1") // as the write's update event does

	got := e.handOvers.all()
	if len(got) == 0 || got[0].Name != "pvc-1" || got[0].Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimDelete {
		t.Fatalf("handed over %v; want pvc-1, saying Delete", names(got))
	}
	if got := e.events.with(ReasonExpired); !slices.Equal(got, []string{onVolume("pvc-1", "Normal VolumeRetentionExpired Retention ended at 2026-11-27T11:00:00Z: deleting the volume")}) {
		t.Errorf("expiry events = %q", got)
	}
}

func TestAnExpiredVolumeIsGivenBackToDeleteInOneWriteWithOneEventAndOneCount(t *testing.T) {
	expired := newVolume("pvc-1", recordedUntil(now.Add(-time.Second)))
	e := newEnv(t, setup{retention: 72 * time.Hour, volumes: []*v1.PersistentVolume{expired}})
	before := e.pv(t, "pvc-1")
	e.run(t)
	e.Eventually(t, "the policy given back", func() bool {
		return e.pv(t, "pvc-1").Spec.PersistentVolumeReclaimPolicy == v1.PersistentVolumeReclaimDelete
	})
	for range 3 {
		e.resync(t, "pvc-1")
	}

	e.expectOneWritePinnedTo(t, before)
	expectOnly(t, before, e.pv(t, "pvc-1"), func(pv *v1.PersistentVolume) {
		// The deadline stays: it tells the deletion path the volume
		// expired.
		pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimDelete
		delete(pv.Annotations, AnnReclaimPolicy)
		pv.Finalizers = []string{"kubernetes.io/pv-protection", libraryFinalizer}
	})
	// Each sync after the write hands it over again, one more look for the
	// library at a PV it is deleting; the event and the count are once
	// per volume.
	handedOver := e.handOvers.all()
	if len(handedOver) == 0 {
		t.Fatal("not handed over")
	}
	for _, pv := range handedOver {
		if pv.Name != "pvc-1" || pv.UID != expired.UID || pv.Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimDelete {
			t.Errorf("handed over %s (%s) saying %s; want pvc-1 saying Delete", pv.Name, pv.UID, pv.Spec.PersistentVolumeReclaimPolicy)
		}
	}
	if got := e.events.all(); !slices.Equal(got, []string{onVolume("pvc-1", "Normal VolumeRetentionExpired Retention ended at 2026-11-27T09:59:59Z: deleting the volume")}) {
		t.Errorf("events = %q; want one expiry", got)
	}
	if got := e.metric(t, "expiries_total"); got != 1 {
		t.Errorf("expiries_total = %v; want 1", got)
	}
}

func TestAnExpiredVolumeKeptUnprotectedIsHandedOverWithoutAWrite(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1", keptUnprotected(now.Add(-time.Second)))}})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)
	e.resync(t, "pvc-1")

	if got := e.handOvers.all(); len(got) == 0 || got[0].Name != "pvc-1" {
		t.Fatalf("handed over %v; want pvc-1", names(got))
	}
	if w := e.writes("persistentvolumes"); len(w) != 0 {
		t.Errorf("writes = %v; the library deletes, the bin writes nothing", w)
	}
}

func TestAPurgeRequestHandsTheVolumeOverBeforeItsDeadline(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1", recordedUntil(now.Add(72*time.Hour)), purgeRequested)}})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)
	e.resync(t, "pvc-1")

	if got := e.handOvers.all(); len(got) == 0 || got[0].Name != "pvc-1" {
		t.Fatalf("handed over %v; want pvc-1", names(got))
	}
	if got := e.events.all(); !slices.Equal(got, []string{onVolume("pvc-1", "Normal VolumePurged Purge requested: deleting the volume before its deadline")}) {
		t.Errorf("events = %q; want one purge", got)
	}
	if got := e.metric(t, "purges_total"); got != 1 {
		t.Errorf("purges_total = %v; want 1", got)
	}
	if got := e.metric(t, "expiries_total"); got != 0 {
		t.Errorf("expiries_total = %v; want 0", got)
	}
}

func TestWithRetentionOffAReleasedVolumeIsLeftToTheLibrary(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1")}, classes: []*storagev1.StorageClass{newClass("")}})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)
	e.resync(t, "pvc-1")

	if got := e.handOvers.all(); len(got) != 0 {
		t.Errorf("handed over %v; the library deletes it as today, unasked", names(got))
	}
	if w := e.writes("persistentvolumes"); len(w) != 0 {
		t.Errorf("writes = %v; want none", w)
	}
	if got := e.events.all(); len(got) != 0 {
		t.Errorf("events = %q; want none", got)
	}
}

func TestAClassSettingThatDoesNotParseIsReportedAndTheVolumeKept(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1")}, classes: []*storagev1.StorageClass{newClass("3 days")}})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)

	got := e.events.all()
	if len(got) != 1 || !strings.HasPrefix(got[0], onVolume("pvc-1", "Warning VolumeRetentionInvalid The volume is kept: ")) || !strings.Contains(got[0], AnnRetention) {
		t.Errorf("events = %q; want one warning naming the annotation", got)
	}
	if h := e.handOvers.all(); len(h) != 0 {
		t.Errorf("handed over %v; a typo must not delete data", names(h))
	}
	if w := e.writes("persistentvolumes"); len(w) != 0 {
		t.Errorf("writes = %v; want none", w)
	}
}

func TestAVolumeGivenBackToAClaimStillThereIsRecordedOnceTheClaimGoes(t *testing.T) {
	e := newEnv(t, setup{
		retention: 72 * time.Hour,
		volumes:   []*v1.PersistentVolume{newVolume("pvc-1", givenBackToTheOldClaim)},
		claims:    []*v1.PersistentVolumeClaim{theOldClaim(testutil.WithVolumeName("pvc-1"))},
	})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)
	e.resync(t, "pvc-1")
	if w := e.writes("persistentvolumes"); len(w) != 0 {
		t.Fatalf("writes = %v; a PV whose claim exists is rebinding, not recorded", w)
	}
	if got := e.metric(t, "retained_volumes"); got != 0 {
		t.Errorf("retained_volumes = %v while rebinding; want 0", got)
	}

	testutil.Delete(t, e.Client.CoreV1().PersistentVolumeClaims(oldNamespace), oldClaim)
	e.Eventually(t, "the deadline on the PV", func() bool { return e.pv(t, "pvc-1").Annotations[AnnRetainedUntil] != "" })
}

func TestGivingBackPointsTheVolumeAtTheClaimInOneWrite(t *testing.T) {
	before := newVolume("pvc-1", recordedUntil(now.Add(72*time.Hour)), restoreTo("restored/data-again"))
	e := newEnv(t, setup{
		volumes: []*v1.PersistentVolume{before},
		claims:  []*v1.PersistentVolumeClaim{newClaim(newNamespace, newClaimName, newUID, "pvc-1")},
	})
	before = e.pv(t, "pvc-1")
	e.run(t)

	e.Eventually(t, "the PV to name the new claim", func() bool { return e.pv(t, "pvc-1").Spec.ClaimRef.UID == newUID })
	e.resync(t, "pvc-1")

	e.expectOneWritePinnedTo(t, before)
	expectOnly(t, before, e.pv(t, "pvc-1"), func(pv *v1.PersistentVolume) {
		pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: newNamespace, Name: newClaimName, UID: newUID}
		delete(pv.Annotations, AnnRetainedUntil)
		delete(pv.Annotations, AnnRetainedFrom)
		delete(pv.Annotations, AnnRestoreTo)
		delete(pv.Labels, LabelRetained)
		pv.Annotations[AnnRestoredTo] = newNamespace + "/" + newClaimName + " " + string(newUID)
	})
	msg := "Normal VolumeRestored Volume pvc-1 given back to claim restored/data-again"
	if got, want := e.events.all(), []string{onVolume("pvc-1", msg), onClaim(newNamespace, newClaimName, msg)}; !slices.Equal(got, want) {
		t.Errorf("events = %q; want %q", got, want)
	}
	if got := e.metric(t, "restores_total"); got != 1 {
		t.Errorf("restores_total = %v; want 1", got)
	}
	if h := e.handOvers.all(); len(h) != 0 {
		t.Errorf("handed over %v; a restored volume is kept", names(h))
	}
}

func TestAClaimThatDoesNotFitIsRefusedOnBothObjects(t *testing.T) {
	larger := newClaim(newNamespace, newClaimName, newUID, "pvc-1", testutil.WithSize("11Gi"))
	e := newEnv(t, setup{
		volumes: []*v1.PersistentVolume{newVolume("pvc-1", recordedUntil(now.Add(72*time.Hour)), restoreTo("restored/data-again"))},
		claims:  []*v1.PersistentVolumeClaim{larger},
	})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)

	msg := "Warning VolumeRestoreRefused Volume pvc-1 cannot be given to claim restored/data-again: the claim asks for 11Gi, the volume has 10Gi"
	// Each sync says it again (the claim's creation syncs the PV too).
	if got, want := distinct(e.events.all()), []string{onVolume("pvc-1", msg), onClaim(newNamespace, newClaimName, msg)}; !slices.Equal(got, want) {
		t.Errorf("events = %q; want %q", got, want)
	}
	if w := e.writes("persistentvolumes"); len(w) != 0 {
		t.Errorf("writes = %v; a refused restore changes nothing", w)
	}
	if got := e.metric(t, "restores_total"); got != 0 {
		t.Errorf("restores_total = %v; want 0", got)
	}
}

func TestARestoreWaitsForItsClaimToBeCreated(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1", recordedUntil(now.Add(72*time.Hour)), restoreTo("restored/data-again"))}})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)

	want := []string{onVolume("pvc-1", "Warning VolumeRestoreRefused Claim restored/data-again does not exist (yet)")}
	if got := distinct(e.events.all()); !slices.Equal(got, want) {
		t.Errorf("events = %q; want %q", got, want)
	}
	if w := e.writes("persistentvolumes"); len(w) != 0 {
		t.Fatalf("writes = %v; want none while the claim does not exist", w)
	}

	testutil.Create(t, e.Client.CoreV1().PersistentVolumeClaims(newNamespace), newClaim(newNamespace, newClaimName, newUID, "pvc-1"))
	e.Eventually(t, "the PV to name the new claim", func() bool { return e.pv(t, "pvc-1").Spec.ClaimRef.UID == newUID })
	e.Eventually(t, "the restore events", func() bool { return len(e.events.with(ReasonRestored)) == 2 })
	if got := e.metric(t, "restores_total"); got != 1 {
		t.Errorf("restores_total = %v; want 1", got)
	}
}

func TestTheGaugesFollowTheVolumesKept(t *testing.T) {
	e := newEnv(t, setup{
		retention: 72 * time.Hour,
		volumes: []*v1.PersistentVolume{
			newVolume("kept", recordedUntil(now.Add(time.Hour))),
			newVolume("released", capacity("5Gi"), withoutFinalizers),
			newVolume("bound", bound),
		},
	})
	e.run(t)

	e.waitGauges(t, "kept and released, not bound", 2, 15*gi)
	e.updateVolume(t, "kept", purgeRequested)
	e.waitGauges(t, "released, after kept was purged", 1, 5*gi)
	testutil.Delete(t, e.Client.CoreV1().PersistentVolumes(), "released")
	e.waitGauges(t, "none, after the PV released went", 0, 0)
}

// docs/recycle-bin.md: at the recorded time the PV is handed to deletion
// by a requeue at the deadline. A restore request that cannot be answered
// (its claim does not exist, or does not fit) must not stop that: the bin
// itself says Expired, so the library deletes the volume at its next
// resync anyway, and meanwhile the gauges do not count it.
func TestAPendingRestoreRequestDoesNotStopTheDeadline(t *testing.T) {
	deadline := now.Add(time.Hour)
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{newVolume("pvc-1", recordedUntil(deadline), restoreTo("restored/data-again"))}})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)
	if r := e.results.of("pvc-1")[0]; r.RequeueAfter != deadline.Sub(start) {
		t.Errorf("requeue after %v; want %v, at the deadline", r.RequeueAfter, deadline.Sub(start))
	}
	if got := e.metric(t, "retained_volumes"); got != 1 {
		t.Errorf("retained_volumes = %v; want 1", got)
	}

	e.clock.SetTime(deadline)
	e.resync(t, "pvc-1") // the requeue: the policy is given back
	e.Eventually(t, "the hand-over after the policy's", func() bool { return len(e.handOvers.all()) > 0 })
	if got := e.handOvers.all(); got[0].Name != "pvc-1" {
		t.Errorf("handed over %v at the deadline; want pvc-1", names(got))
	}
}

// With --node-deployment every node's sidecar sees every PV, and only the
// one whose driver deletes the volume keeps, expires and gives it back: the
// others write nothing, hand nothing over and say nothing.
func TestAVolumeOfAnotherNodeIsLeftToItsNode(t *testing.T) {
	expired := newVolume("pvc-2", recordedUntil(start.Add(-time.Minute)))
	e := newEnv(t, setup{
		retention: 72 * time.Hour,
		volumes:   []*v1.PersistentVolume{newVolume("pvc-1"), expired},
		owns:      func(*v1.PersistentVolume) (bool, error) { return false, nil },
	})
	e.run(t)
	e.waitSyncs(t, "pvc-1", 1)
	e.waitSyncs(t, "pvc-2", 1)
	if w := e.writes("persistentvolumes"); len(w) != 0 {
		t.Errorf("writes = %v; want none from another node's sidecar", w)
	}
	if h := e.handOvers.all(); len(h) != 0 {
		t.Errorf("handed over %v; want none", names(h))
	}
	if ev := e.events.all(); len(ev) != 0 {
		t.Errorf("events = %q; want none", ev)
	}
}
