package claimprotection

import (
	"errors"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

func heldClaim() *v1.PersistentVolumeClaim {
	return newClaim("db", provisionstate.ProvisioningProtectionFinalizer)
}

func released(t *testing.T, e *env) func() bool {
	return func() bool { return !has(e.claim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) }
}

// bindHeldClaim binds the held claim to its PV, as the binder does, and
// waits for its provisioning-protection finalizer to go.
func bindHeldClaim(t *testing.T, e *env) {
	t.Helper()
	testutil.Update(t, e.api(), "db", func(c *v1.PersistentVolumeClaim) {
		c.Spec.VolumeName = "pvc-uid-db"
		c.Status.Phase = v1.ClaimBound
	})
	e.Eventually(t, "the finalizer to go", released(t, e))
}

func TestProvisioningProtectionWaitsForTheBinder(t *testing.T) {
	claim := heldClaim()
	claim.Finalizers = append([]string{pvcProtection}, claim.Finalizers...)
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, volumes: []*v1.PersistentVolume{pvOf(claim)}})
	if err := e.sync(t, "db"); err != nil {
		t.Fatal(err)
	}
	if !has(e.claim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) {
		t.Fatal("the finalizer went while the binder binds the claim: the writes would conflict")
	}
}

func TestProvisioningProtectionGoesOnceTheClaimIsBound(t *testing.T) {
	claim := heldClaim()
	claim.Finalizers = append([]string{pvcProtection}, claim.Finalizers...)
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, volumes: []*v1.PersistentVolume{pvOf(claim)}})
	e.run(t)
	bindHeldClaim(t, e)
	if got := e.claim(t, "db").Finalizers; len(got) != 1 || got[0] != pvcProtection {
		t.Fatalf("finalizers = %v; others must stay", got)
	}
	if e.replayer.replays() != 0 {
		t.Fatal("a claim with a PV needs no driver call")
	}
	e.Eventually(t, "finalizers removed = 1", func() bool { return e.metric(t, "finalizers_removed_total") == 1 })
}

// What a claim's CreateVolume was made with is recorded only while the
// call may be replayed: the snapshot handle of a restore, the name
// template, the claim metadata its parameters read.
func TestTheRequestsRecordsGoWithTheFinalizer(t *testing.T) {
	claim := heldClaim()
	claim.Annotations = map[string]string{"keep": "me"}
	for _, key := range provisionstate.RequestRecords {
		claim.Annotations[key] = "recorded"
	}
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, volumes: []*v1.PersistentVolume{pvOf(claim)}})
	e.run(t)
	bindHeldClaim(t, e)
	got := e.claim(t, "db").Annotations
	for _, key := range provisionstate.RequestRecords {
		if _, ok := got[key]; ok {
			t.Errorf("annotation %s stayed after the finalizer went", key)
		}
	}
	if got["keep"] != "me" {
		t.Errorf("annotations = %v; others must stay", got)
	}
}

func TestProvisioningProtectionStaysOnALiveClaimWithoutPV(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{heldClaim()}})
	if err := e.sync(t, "db"); err != nil {
		t.Fatal(err)
	}
	if !has(e.claim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) || e.replayer.replays() != 0 {
		t.Fatal("the finalizer must stay, untouched, while provisioning may still happen")
	}
}

func TestGateOffClearsAStaleFinalizer(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{heldClaim()}, gateOff: true})
	e.run(t)
	e.Eventually(t, "the stale finalizer to go", released(t, e))
	if e.replayer.replays() != 0 {
		t.Fatal("clearing a stale finalizer with the gate off needs no driver call")
	}
}

func TestGateOffKeepsTheFinalizerWhileThisProcessCalls(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{heldClaim()}, gateOff: true})
	e.calls.Begin("uid-db")
	if err := e.sync(t, "db"); err != nil {
		t.Fatal(err)
	}
	if !has(e.claim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) {
		t.Fatal("the finalizer went while a CreateVolume of this process runs")
	}
}

func TestADeletedClaimIsReplayedThenReleased(t *testing.T) {
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{heldClaim()}})
	e.run(t)
	testutil.Delete(t, e.api(), "db")
	e.Eventually(t, "the claim to be released and gone", func() bool { return e.claim(t, "db") == nil })
	if e.replayer.replays() != 1 {
		t.Fatalf("%d replays, want 1", e.replayer.replays())
	}
	e.Eventually(t, "no held claim after the release", func() bool { return e.metric(t, "held_claims") == 0 })
	var events string
	e.Eventually(t, "the hold and release events", func() bool {
		events += strings.Join(e.Events.Drain(), "\n") + "\n"
		return strings.Contains(events, ReasonDeletionHeld) && strings.Contains(events, ReasonDeletionReleased)
	})
}

func TestADeletedClaimStaysHeldWhileTheVolumeMayStillAppear(t *testing.T) {
	for name, r := range map[string]*replayer{
		"call refused in this process": {done: false},
		"driver not answering":         {done: false, err: errors.New("rpc error: code = Unavailable")},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{heldClaim()}, replayer: r})
			testutil.Delete(t, e.api(), "db")
			err := e.sync(t, "db")
			if (r.err != nil) != (err != nil) {
				t.Fatalf("sync error %v", err)
			}
			if !has(e.claim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) {
				t.Fatal("the claim must stay while a volume may exist")
			}
			if got := e.metric(t, "held_claims"); got != 1 {
				t.Fatalf("held claims %v", got)
			}
			if got := strings.Join(e.Events.Drain(), "\n"); !strings.Contains(got, ReasonDeletionHeld) {
				t.Fatalf("events %q", got)
			}
		})
	}
}

func TestADeletedClaimWaitsForTheRunningCallThenItsPV(t *testing.T) {
	claim := heldClaim()
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}})
	e.calls.Begin(claim.UID)
	testutil.Delete(t, e.api(), "db")
	if err := e.sync(t, "db"); err != nil {
		t.Fatal(err)
	}
	if !has(e.claim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) || e.replayer.replays() != 0 {
		t.Fatal("the claim must be held, without a second call, while CreateVolume runs")
	}
	e.calls.End(claim.UID, provisionstate.Created)
	if err := e.sync(t, "db"); err != nil {
		t.Fatal(err)
	}
	if !has(e.claim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) {
		t.Fatal("the claim must be held until its PV is saved")
	}
	e.run(t)
	testutil.Create(t, e.Client.CoreV1().PersistentVolumes(), pvOf(claim))
	e.Eventually(t, "the claim to be released", func() bool { return e.claim(t, "db") == nil })
	if e.replayer.replays() != 0 {
		t.Fatal("the PV owns the volume: no replay is needed")
	}
}

func TestTheEndOfACallRequeuesItsClaim(t *testing.T) {
	claim := heldClaim()
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}})
	e.calls.Begin(claim.UID)
	testutil.Delete(t, e.api(), "db")
	e.run(t)
	e.Eventually(t, "the hold", func() bool { return e.metric(t, "held_claims") == 1 })
	// A final error: the driver created nothing, so nothing is left to find.
	e.calls.End(claim.UID, provisionstate.Final)
	e.Eventually(t, "the claim to be released", func() bool { return e.claim(t, "db") == nil })
	if e.replayer.replays() != 0 {
		t.Fatal("after a final error no replay is needed")
	}
}

func TestAReleasedVersionIsNotReplayedAgain(t *testing.T) {
	claim := heldClaim()
	claim.Finalizers = append(claim.Finalizers, pvcProtection)
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}})
	testutil.Delete(t, e.api(), "db")
	if err := e.sync(t, "db"); err != nil {
		t.Fatal(err)
	}
	// The cache still holds the version the finalizer was removed from.
	if _, err := e.ctrl.sync(e.Ctx, keyOf("db")); err != nil {
		t.Fatal(err)
	}
	if e.replayer.replays() != 1 {
		t.Fatalf("%d replays of one release", e.replayer.replays())
	}
}
