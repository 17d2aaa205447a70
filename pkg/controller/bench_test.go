package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/go-logr/logr"
	"google.golang.org/grpc"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
)

// benchCtx discards logs: a benchmark measures the decision, not klog.
func benchCtx() context.Context {
	return klog.NewContext(context.Background(), logr.Discard())
}

// BenchmarkProtectionSync measures one sync of the claim-protection
// controller for a claim carrying the provisioning-protection finalizer:
// one whose PV exists but is not bound yet (cache reads only, no write),
// and one that is Bound (the finalizer patch).
func BenchmarkProtectionSync(b *testing.B) {
	waiting := newClaim("db", "1Gi")
	waiting.Finalizers = []string{"kubernetes.io/pvc-protection", ProvisioningProtectionFinalizer}
	bound := waiting.DeepCopy()
	bound.Spec.VolumeName = "pvc-" + testClaimUID
	bound.Status.Phase = v1.ClaimBound
	for _, bc := range []struct {
		name    string
		claim   *v1.PersistentVolumeClaim
		patches int
	}{
		{"no-write/awaiting-bind", waiting, 0},
		{"remove-finalizer/bound", bound, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctrl, client := newBenchProtection(b, bc.claim, claimPV(bc.claim))
			ctx := benchCtx()
			key := testNamespace + "/" + bc.claim.Name
			sync := func() {
				if err := ctrl.sync(ctx, key); err != nil {
					b.Fatal(err)
				}
				// Forget the release, or the next round would skip the
				// claim as already released.
				ctrl.heldMu.Lock()
				delete(ctrl.released, bc.claim.UID)
				ctrl.heldMu.Unlock()
			}
			// Check once that the sync does what the name says.
			sync()
			checkFinalizerPatches(b, client.Actions(), bc.patches)
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

// newBenchProtection returns a protection controller whose informers never
// run: their caches hold exactly the given objects, so every sync makes the
// same decision. Patches are answered directly: the object tracker's JSON
// round trips would measure the fake, not the controller.
func newBenchProtection(b *testing.B, claim *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) (*ProtectionController, *fake.Clientset) {
	b.Helper()
	client := fake.NewClientset()
	client.PrependReactor("patch", "persistentvolumeclaims", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, claim, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	claims, volumes := factory.Core().V1().PersistentVolumeClaims(), factory.Core().V1().PersistentVolumes()
	prov, err := New(Options{
		DriverName:             testDriver,
		Client:                 client,
		CSIClient:              &fakeCSI{},
		ClaimLister:            claims.Lister(),
		VolumeLister:           volumes.Lister(),
		ClassLister:            factory.Storage().V1().StorageClasses().Lister(),
		NodeLister:             factory.Core().V1().Nodes().Lister(),
		CSINodeLister:          factory.Storage().V1().CSINodes().Lister(),
		VolumeAttachmentLister: factory.Storage().V1().VolumeAttachments().Lister(),
		Timeout:                5 * time.Second,
		VolumeNamePrefix:       "pvc",
		VolumeNameUUIDLength:   -1,
		Features:               Features{ProvisioningProtection: true},
	})
	if err != nil {
		b.Fatal(err)
	}
	ctrl, err := NewProtectionController(ProtectionControllerOptions{
		Client: client, ClaimInformer: claims, VolumeInformer: volumes,
		Provisioner: prov, EventRecorder: &record.FakeRecorder{},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ctrl.queue.ShutDown)
	if err := claims.Informer().GetIndexer().Add(claim); err != nil {
		b.Fatal(err)
	}
	if err := volumes.Informer().GetIndexer().Add(pv); err != nil {
		b.Fatal(err)
	}
	return ctrl, client
}

// checkFinalizerPatches fails unless actions are exactly want patches that
// remove the provisioning-protection finalizer.
func checkFinalizerPatches(b *testing.B, actions []k8stesting.Action, want int) {
	b.Helper()
	if len(actions) != want {
		b.Fatalf("%d API calls, want %d: %v", len(actions), want, actions)
	}
	for _, a := range actions {
		p, ok := a.(k8stesting.PatchAction)
		if !ok || !strings.Contains(string(p.GetPatch()), ProvisioningProtectionFinalizer) {
			b.Fatalf("unexpected call %v", a)
		}
	}
}

// benchClass has three driver parameters and an fsType, as a typical class.
func benchClass() *storagev1.StorageClass {
	return newClass(map[string]string{
		"type": "ssd", "replicas": "3", "encrypted": "true",
		"csi.storage.k8s.io/fstype": "xfs",
	})
}

// BenchmarkPrepareCreateVolume measures building the CreateVolume request
// from a claim and its StorageClass, everything Provision does before the
// driver call: parameters, volume name, capability, secrets and data source.
// "secrets-and-metadata" adds the six templated secret references (the
// provisioner secret is fetched, answered at once by a reactor) and
// --extra-create-metadata.
func BenchmarkPrepareCreateVolume(b *testing.B) {
	secretful := benchClass()
	for k, v := range secretClass() {
		secretful.Parameters[k] = v
	}
	for _, bc := range []struct {
		name    string
		class   *storagev1.StorageClass
		extra   bool
		secrets int
	}{
		{"plain", benchClass(), false, 0},
		{"secrets-and-metadata", secretful, true, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := newEnv(b, envObjects{}, func(o *Options) { o.ExtraCreateMetadata = bc.extra })
			secret := newSecret(testNamespace, "db-creds", map[string]string{"password": "s3cret"})
			e.client.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, secret, nil
			})
			claim := newClaim("db", "1Gi")
			claim.Annotations = map[string]string{"team.example.com/stage-secret": "stage-key"}
			o := controller.ProvisionOptions{StorageClass: bc.class, PVC: claim}
			ctx := benchCtx()
			req, prep, err := e.prov.prepare(ctx, o, false)
			if err != nil {
				b.Fatal(err)
			}
			if req.Name != "pvc-"+testClaimUID || req.Parameters["type"] != "ssd" || prep.fsType != "xfs" ||
				len(req.Secrets) != bc.secrets || (bc.extra && req.Parameters[parameters.PVCNameKey] != "db") {
				b.Fatalf("request %v, prepared %+v", req, prep)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := e.prov.prepare(ctx, o, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// instantCSI answers CreateVolume at once without recording the call, so
// that a long benchmark does not grow a slice of requests.
type instantCSI struct {
	csi.ControllerClient
	volume *csi.Volume
}

func (c instantCSI) CreateVolume(context.Context, *csi.CreateVolumeRequest, ...grpc.CallOption) (*csi.CreateVolumeResponse, error) {
	return &csi.CreateVolumeResponse{Volume: c.volume}, nil
}

// BenchmarkProvision measures the whole per-claim Provision with the
// ProvisioningProtection gate on, for a claim that already carries the
// finalizer (the common retry, no write), a driver that answers at once and
// the PV built from its answer: the sidecar's own CPU per claim, without
// the network and without the library saving the PV.
func BenchmarkProvision(b *testing.B) {
	claim := newClaim("db", "1Gi")
	claim.Finalizers = []string{ProvisioningProtectionFinalizer}
	volume := &csi.Volume{VolumeId: "handle-1", CapacityBytes: 1 << 30, VolumeContext: map[string]string{"tier": "gold"}}
	e := newEnv(b, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, func(o *Options) {
		o.CSIClient = instantCSI{volume: volume}
		o.Features.ProvisioningProtection = true
	})
	o := controller.ProvisionOptions{StorageClass: benchClass(), PVC: claim}
	ctx := benchCtx()
	pv, state, err := e.prov.Provision(ctx, o)
	if err != nil || state != controller.ProvisioningFinished {
		b.Fatalf("state %s, err %v", state, err)
	}
	if pv.Spec.CSI.VolumeHandle != "handle-1" || pv.Spec.CSI.FSType != "xfs" || len(e.client.Actions()) != 0 {
		b.Fatalf("PV %+v after API calls %v", pv.Spec.CSI, e.client.Actions())
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := e.prov.Provision(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
}
