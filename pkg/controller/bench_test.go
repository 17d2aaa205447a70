package controller

import (
	"context"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/go-logr/logr"
	"google.golang.org/grpc"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// benchCtx discards logs: a benchmark measures the decision, not klog.
func benchCtx() context.Context {
	return klog.NewContext(context.Background(), logr.Discard())
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
			secret := testutil.NewSecret(testNamespace, "db-creds", map[string]string{"password": "s3cret"})
			e.client.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, secret, nil
			})
			claim := newClaim("db", "1Gi")
			claim.Annotations = map[string]string{"team.example.com/stage-secret": "stage-key"}
			o := controller.ProvisionOptions{StorageClass: bc.class, PVC: claim}
			ctx := benchCtx()
			req, prep, err := e.prov.prepare(ctx, o)
			if err != nil {
				b.Fatal(err)
			}
			if req.Name != "pvc-"+testClaimUID || req.Parameters["type"] != "ssd" || prep.fsType != "xfs" ||
				len(req.Secrets) != bc.secrets || (bc.extra && req.Parameters[parameters.PVCNameKey] != "db") {
				b.Fatalf("request %v, prepared %+v", req, prep)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := e.prov.prepare(ctx, o); err != nil {
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
	claim.Finalizers = []string{provisionstate.ProvisioningProtectionFinalizer}
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
