package claimprotection

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// What the controller keeps per claim: nothing for a claim without its
// finalizers, neither a queue entry nor a second index of every claim, and
// its record of a release only until the next version is synced.

func TestAVolumeDoesNotQueueACachedClaimWithoutOurFinalizers(t *testing.T) {
	claim := newClaim("db", pvcProtection)
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}})
	e.ctrl.onVolume(pvOf(claim))
	if n := e.ctrl.loop.Len(); n != 0 {
		t.Fatalf("queue holds %d claims; a bound claim without our finalizers has nothing to sync", n)
	}
}

func TestAVolumeQueuesAClaimNotCachedYet(t *testing.T) {
	e := newEnv(t, setup{})
	e.ctrl.onVolume(pvOf(newClaim("db")))
	if n := e.ctrl.loop.Len(); n != 1 {
		t.Fatalf("queue holds %d claims, want the claim the cache has not seen yet", n)
	}
}

func TestTheReleaseIsForgottenOnceTheNextVersionIsSynced(t *testing.T) {
	claim := heldClaim()
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, volumes: []*v1.PersistentVolume{pvOf(claim)}})
	e.run(t)
	bindHeldClaim(t, e)
	e.Eventually(t, "the record of the release to go", func() bool { return !e.ctrl.releasePending(claim.UID) })
}

func TestTheLibrarysUIDIndexServesAsOurs(t *testing.T) {
	const libraryIndex = "uid"
	claim := newClaim("db", provisionstate.ProvisioningProtectionFinalizer)
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, uidIndex: libraryIndex})
	if _, ok := e.claims.GetIndexers()[claimUIDIndex]; ok {
		t.Fatal("a second index of every claim by UID")
	}
	objs, err := e.claims.ByIndex(e.ctrl.uidIndex, string(claim.UID))
	if err != nil || len(objs) != 1 {
		t.Fatalf("the claim by UID: %v, %v", objs, err)
	}
	// The handlers' queueing of the listed claim is done once it shows.
	e.Eventually(t, "the claim to be queued", func() bool { return e.ctrl.loop.Len() == 1 })
}

func TestAMissingUIDIndexIsAnError(t *testing.T) {
	e := testutil.NewEnv(t, testutil.EnvOptions{})
	_, err := New(Options{
		Client:         e.Client,
		ClaimInformer:  e.Informers.Core().V1().PersistentVolumeClaims(),
		VolumeInformer: e.Informers.Core().V1().PersistentVolumes(),
		Calls:          provisionstate.NewTracker(),
		Replayer:       &replayer{},
		EventRecorder:  e.Events,
		ClaimUIDIndex:  "uid",
	})
	if err == nil {
		t.Fatal("New accepted a UID index nobody registered")
	}
}
