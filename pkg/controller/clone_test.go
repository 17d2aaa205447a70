package controller

import (
	"context"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const sourceUID = "5f0c1d2e-0000-4000-8000-000000000001"

// cloneFixture is a bound source claim with its PV, and a clone asking for it.
func cloneFixture() (*v1.PersistentVolumeClaim, *v1.PersistentVolume, *v1.PersistentVolumeClaim) {
	source := newClaim("golden", "1Gi")
	source.UID = types.UID(sourceUID)
	source.ResourceVersion = "7"
	source.Spec.VolumeName = "pvc-" + sourceUID
	source.Status.Phase = v1.ClaimBound
	source.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}
	pv := testutil.NewPV(source.Spec.VolumeName, testutil.WithCSI(testDriver, "golden-handle"), testutil.BoundTo(testNamespace, "golden", source.UID))
	clone := newClaim("copy", "1Gi")
	clone.Spec.DataSource = &v1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "golden"}
	return source, pv, clone
}

func TestCloneProtectsSourceBeforeCreateVolume(t *testing.T) {
	source, pv, clone := cloneFixture()
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{source, clone}, volumes: []*v1.PersistentVolume{pv}})
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		got, err := e.client.CoreV1().PersistentVolumeClaims(testNamespace).Get(context.Background(), "golden", metav1.GetOptions{})
		if err != nil || !finalizer.Has(got, provisionstate.CloningProtectionFinalizer) {
			t.Errorf("source claim lacks the cloning-protection finalizer during CreateVolume (err %v)", err)
		}
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "copy", ContentSource: req.VolumeContentSource}}, nil
	}
	if _, _, err := e.provision(t, clone, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).VolumeContentSource.GetVolume().GetVolumeId(); got != "golden-handle" {
		t.Fatalf("content source volume = %q, want golden-handle", got)
	}
}

func TestCloneHonoursDataSourceRef(t *testing.T) {
	source, pv, clone := cloneFixture()
	clone.Spec.DataSource = nil
	clone.Spec.DataSourceRef = &v1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "golden"}
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{source, clone}, volumes: []*v1.PersistentVolume{pv}})
	if _, _, err := e.provision(t, clone, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if e.csi.lastCreate(t).VolumeContentSource == nil {
		t.Fatal("dataSourceRef must produce a content source")
	}
}

// Upstream clones across StorageClasses of one driver, and sizes a clone
// against its source's request, not the source's (possibly rounded up)
// capacity.
func TestCloneAcrossStorageClassesWithUpstreamSizeRule(t *testing.T) {
	source, pv, clone := cloneFixture()
	other := "slow"
	source.Spec.StorageClassName = &other
	source.Status.Capacity[v1.ResourceStorage] = resource.MustParse("2Gi")
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{source, clone}, volumes: []*v1.PersistentVolume{pv}})
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		// The clone holds the source's 2Gi.
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "copy", CapacityBytes: 2 << 30, ContentSource: req.VolumeContentSource}}, nil
	}
	pv2, _, err := e.provision(t, clone, newClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).VolumeContentSource.GetVolume().GetVolumeId(); got != "golden-handle" {
		t.Fatalf("content source volume = %q, want golden-handle", got)
	}
	if got := e.csi.lastCreate(t).CapacityRange.GetRequiredBytes(); got != 1<<30 {
		t.Errorf("CreateVolume asked for %d bytes, want the clone's request", got)
	}
	if got := pv2.Spec.Capacity[v1.ResourceStorage]; got.Value() != 2<<30 {
		t.Errorf("PV capacity %s, want the 2Gi the driver made", got.String())
	}
}

func TestCloneRefusals(t *testing.T) {
	cases := []struct {
		name    string
		objects func(source *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, clone *v1.PersistentVolumeClaim)
		opts    func(*Options)
		want    string
	}{
		{"source missing", func(s *v1.PersistentVolumeClaim, _ *v1.PersistentVolume, _ *v1.PersistentVolumeClaim) {
			s.Name = "elsewhere"
		}, nil, "not found"},
		{"source unbound", func(s *v1.PersistentVolumeClaim, _ *v1.PersistentVolume, _ *v1.PersistentVolumeClaim) {
			s.Status.Phase = v1.ClaimPending
		}, nil, "the PVC DataSource golden must have a status of Bound.  Got {Pending"},
		{"source being deleted", func(s *v1.PersistentVolumeClaim, _ *v1.PersistentVolume, _ *v1.PersistentVolumeClaim) {
			now := metav1.Now()
			s.DeletionTimestamp = &now
		}, nil, "error getting handle for DataSource Type PersistentVolumeClaim by Name golden: the PVC DataSource golden is currently being deleted"},
		{"source without class", func(s *v1.PersistentVolumeClaim, _ *v1.PersistentVolume, _ *v1.PersistentVolumeClaim) {
			s.Spec.StorageClassName = nil
		}, nil, "error getting handle for DataSource Type PersistentVolumeClaim by Name golden: the source PVC (golden) storageclass cannot be empty"},
		{"clone smaller than the source's request", func(_ *v1.PersistentVolumeClaim, _ *v1.PersistentVolume, c *v1.PersistentVolumeClaim) {
			c.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("512Mi")
		}, nil, "error, new PVC request must be greater than or equal in size to the specified PVC data source, requested 536870912 but source is 1073741824"},
		{"volume mode differs", func(_ *v1.PersistentVolumeClaim, _ *v1.PersistentVolume, c *v1.PersistentVolumeClaim) {
			block := v1.PersistentVolumeBlock
			c.Spec.VolumeMode = &block
		}, nil, "the source PVC and destination PVCs must have the same volume mode for cloning.  Source is Filesystem, but new PVC requested Block"},
		{"source PV of another driver", func(_ *v1.PersistentVolumeClaim, pv *v1.PersistentVolume, _ *v1.PersistentVolumeClaim) {
			pv.Spec.CSI.Driver = "other.example.com"
		}, nil, "error getting handle for DataSource Type PersistentVolumeClaim by Name golden: claim in dataSource not bound or invalid"},
		{"driver cannot clone", nil, func(o *Options) {
			o.ControllerCapabilities[csi.ControllerServiceCapability_RPC_CLONE_VOLUME] = false
		}, "CSI driver does not support clone operations: controller CLONE_VOLUME capability is not reported"},
		{"other namespace", func(_ *v1.PersistentVolumeClaim, _ *v1.PersistentVolume, c *v1.PersistentVolumeClaim) {
			ns := "team-b"
			c.Spec.DataSourceRef = &v1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "golden", Namespace: &ns}
		}, nil, "dataSourceRef namespace specified but the CrossNamespaceVolumeDataSource feature is disabled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			source, pv, clone := cloneFixture()
			if tc.objects != nil {
				tc.objects(source, pv, clone)
			}
			opts := func(*Options) {}
			if tc.opts != nil {
				opts = tc.opts
			}
			e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{source, clone}, volumes: []*v1.PersistentVolume{pv}}, opts)
			_, state, err := e.provision(t, clone, newClass(nil), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
			if state == controller.ProvisioningInBackground || len(e.csi.creates) != 0 {
				t.Fatalf("state %s after %d CreateVolume calls: a refused clone must create nothing", state, len(e.csi.creates))
			}
		})
	}
}

func TestCloneRefusesVolumeWithoutContentSource(t *testing.T) {
	source, pv, clone := cloneFixture()
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{source, clone}, volumes: []*v1.PersistentVolume{pv}})
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "empty"}}, nil
	}
	_, _, err := e.provision(t, clone, newClass(nil), nil)
	if err == nil || !strings.Contains(err.Error(), "content source") {
		t.Fatalf("err = %v, want a refusal of the empty clone", err)
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "empty" {
		t.Fatalf("deletes = %v, want the empty volume deleted", e.csi.deletes)
	}
}
