package claimprotection

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// BenchmarkProtectionSync measures one sync of the claim protection
// controller for a claim carrying the provisioning-protection finalizer:
// one whose PV exists but is not bound yet (cache reads only, no write),
// and one that is Bound (the finalizer write).
func BenchmarkProtectionSync(b *testing.B) {
	waiting := newClaim("db", pvcProtection, provisionstate.ProvisioningProtectionFinalizer)
	waiting.ResourceVersion = "7"
	bound := waiting.DeepCopy()
	bound.Spec.VolumeName = "pvc-uid-db"
	bound.Status.Phase = v1.ClaimBound
	for _, bc := range []struct {
		name   string
		claim  *v1.PersistentVolumeClaim
		writes int
	}{
		{"no-write/awaiting-bind", waiting, 0},
		{"remove-finalizer/bound", bound, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctrl, client := newBenchController(b, bc.claim, pvOf(bc.claim))
			ctx := testutil.QuietContext()
			key := keyOf(bc.claim.Name)
			sync := func() {
				if _, err := ctrl.sync(ctx, key); err != nil {
					b.Fatal(err)
				}
				// Forget the release, or the next round would skip the
				// claim as already released.
				ctrl.releasedMu.Lock()
				delete(ctrl.released, bc.claim.UID)
				ctrl.releasedMu.Unlock()
			}
			// Check once that the sync does what the name says.
			sync()
			checkFinalizerWrites(b, client.Actions(), bc.writes)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				sync()
				// The fake records every call; drop them now and then
				// without client.Actions(), which copies them all.
				if n++; n%1024 == 0 {
					client.ClearActions()
				}
			}
		})
	}
}

// newBenchController returns a controller whose informers never run: their
// caches hold exactly the given objects, so every sync makes the same
// decision. Writes are answered directly (see testutil.AnswerWith).
func newBenchController(b *testing.B, claim *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) (*Controller, *fake.Clientset) {
	b.Helper()
	client := fake.NewClientset()
	testutil.AnswerWith(client, "update", "persistentvolumeclaims", claim)
	factory := informers.NewSharedInformerFactory(client, 0)
	claims, volumes := factory.Core().V1().PersistentVolumeClaims(), factory.Core().V1().PersistentVolumes()
	ctrl, err := New(Options{
		Client: client, ClaimInformer: claims, VolumeInformer: volumes,
		Calls: provisionstate.NewTracker(), Replayer: &replayer{done: true},
		ProvisioningProtection: true, EventRecorder: &record.FakeRecorder{},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ctrl.loop.ShutDown)
	testutil.AddTo(b, claims.Informer().GetIndexer(), claim)
	testutil.AddTo(b, volumes.Informer().GetIndexer(), pv)
	return ctrl, client
}

// checkFinalizerWrites fails unless actions are exactly want claim updates
// that remove the provisioning-protection finalizer.
func checkFinalizerWrites(b *testing.B, actions []k8stesting.Action, want int) {
	b.Helper()
	if len(actions) != want {
		b.Fatalf("%d API calls, want %d: %v", len(actions), want, actions)
	}
	for _, a := range actions {
		u, ok := a.(k8stesting.UpdateAction)
		if !ok {
			b.Fatalf("unexpected call %v", a)
		}
		if claim := u.GetObject().(*v1.PersistentVolumeClaim); slices.Contains(claim.Finalizers, provisionstate.ProvisioningProtectionFinalizer) {
			b.Fatalf("the update keeps the finalizer: %v", claim.Finalizers)
		}
	}
}
