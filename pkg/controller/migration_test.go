package controller

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/controller/parameters"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const (
	ebsDriver = "ebs.csi.aws.com"
	ebsInTree = "kubernetes.io/aws-ebs"
)

// migratedEnv is a provisioner of the EBS CSI driver, which replaces the
// in-tree aws-ebs plugin.
func migratedEnv(t *testing.T, objs envObjects, mutate ...func(*Options)) *env {
	t.Helper()
	return newEnv(t, objs, append([]func(*Options){func(o *Options) {
		o.DriverName = ebsDriver
		o.MigratedFrom = ebsInTree
	}}, mutate...)...)
}

func inTreeClass(params map[string]string) *storagev1.StorageClass {
	class := newClass(params)
	class.Provisioner = ebsInTree
	return class
}

// migratedClaim is a claim of an in-tree class as the PV controller hands
// it to the CSI driver.
func migratedClaim() *v1.PersistentVolumeClaim {
	claim := newClaim("db", "1Gi")
	claim.Annotations = map[string]string{driverscope.AnnStorageProvisioner: ebsDriver, driverscope.AnnMigratedTo: ebsDriver}
	return claim
}

func TestInTreePluginOfNamesTheReplacedPlugin(t *testing.T) {
	for driver, want := range map[string]string{
		"ebs.csi.aws.com":       "kubernetes.io/aws-ebs",
		"pd.csi.storage.gke.io": "kubernetes.io/gce-pd",
		"disk.csi.azure.com":    "kubernetes.io/azure-disk",
		testDriver:              "",
	} {
		if got, err := InTreePluginOf(driver); err != nil || got != want {
			t.Errorf("InTreePluginOf(%s) = %q, %v; want %q", driver, got, err, want)
		}
	}
}

func TestInTreeClassIsProvisionedTranslatedAndItsPVWrittenInTree(t *testing.T) {
	e := migratedEnv(t, envObjects{})
	pv, state, err := e.provision(t, migratedClaim(), inTreeClass(map[string]string{"type": "gp3", "fsType": "xfs"}), nil)
	if err != nil || state != controller.ProvisioningFinished {
		t.Fatalf("state %v, err %v", state, err)
	}
	req := e.csi.lastCreate(t)
	if len(req.Parameters) != 1 || req.Parameters["type"] != "gp3" {
		t.Errorf("CreateVolume parameters = %v, want the translated class's (fsType moved out)", req.Parameters)
	}
	if got := req.VolumeCapabilities[0].GetMount().GetFsType(); got != "xfs" {
		t.Errorf("fsType = %q, want the in-tree class's xfs", got)
	}
	if pv.Spec.CSI != nil || pv.Spec.AWSElasticBlockStore == nil {
		t.Fatalf("PV source = %+v, want an in-tree awsElasticBlockStore", pv.Spec.PersistentVolumeSource)
	}
	if ebs := pv.Spec.AWSElasticBlockStore; ebs.VolumeID != "handle-"+req.Name || ebs.FSType != "xfs" {
		t.Errorf("awsElasticBlockStore = %+v, want the driver's handle and xfs", ebs)
	}
	if _, ok := pv.Annotations[parameters.AnnDeletionSecretName]; !ok {
		t.Error("the translated PV lost the deletion-secret annotations")
	}
}

func TestInTreeClassZonesBecomeTheDriversTopology(t *testing.T) {
	e := migratedEnv(t, envObjects{}, func(o *Options) {
		o.PluginCapabilities[csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS] = true
	})
	claim := migratedClaim()
	_, _, err := e.provision(t, claim, inTreeClass(map[string]string{"zone": "eu-west-1a"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	requisite := e.csi.lastCreate(t).GetAccessibilityRequirements().GetRequisite()
	if len(requisite) != 1 || requisite[0].Segments["topology.ebs.csi.aws.com/zone"] != "eu-west-1a" {
		t.Errorf("requisite topology = %v, want the zone under the driver's key", requisite)
	}
}

func TestInTreeClaimNotHandedToTheDriverIsLeftAlone(t *testing.T) {
	e := migratedEnv(t, envObjects{})
	claim := newClaim("db", "1Gi")
	claim.Annotations = map[string]string{driverscope.AnnStorageProvisioner: ebsInTree}
	_, state, err := e.provision(t, claim, inTreeClass(nil), nil)
	var ignored *controller.IgnoredError
	if !errors.As(err, &ignored) || state != controller.ProvisioningFinished || !strings.Contains(err.Error(), "This could mean the PVC is not migrated") {
		t.Fatalf("state %v, err %v; want upstream's IgnoredError", state, err)
	}
	if len(e.csi.creates) != 0 {
		t.Error("CreateVolume was called")
	}
}

func TestInTreeClassOfAnotherPluginIsNotOurs(t *testing.T) {
	e := migratedEnv(t, envObjects{})
	class := inTreeClass(nil)
	class.Provisioner = "kubernetes.io/gce-pd"
	_, _, err := e.provision(t, migratedClaim(), class, nil)
	var ignored *controller.IgnoredError
	if !errors.As(err, &ignored) || len(e.csi.creates) != 0 {
		t.Fatalf("err %v, creates %d; want the class ignored", err, len(e.csi.creates))
	}
}

func TestInTreeClassNeedsADriverThatReplacesIt(t *testing.T) {
	e := newEnv(t, envObjects{})
	_, _, err := e.provision(t, migratedClaim(), inTreeClass(nil), nil)
	var ignored *controller.IgnoredError
	if !errors.As(err, &ignored) || len(e.csi.creates) != 0 {
		t.Fatalf("err %v, creates %d; want the class ignored", err, len(e.csi.creates))
	}
}

func TestInTreeClaimIsProtectedDuringProvisioning(t *testing.T) {
	claim := migratedClaim()
	e := migratedEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn)
	if _, _, err := e.provision(t, claim, inTreeClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	stored := e.apiClaim(t, claim.Name)
	if !strings.Contains(strings.Join(stored.Finalizers, ","), "provisioning-protection") {
		t.Errorf("claim finalizers = %v, want the provisioning-protection finalizer before CreateVolume", stored.Finalizers)
	}
}

func inTreePV(volumeID string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + testClaimUID, Annotations: map[string]string{driverscope.AnnProvisionedBy: ebsInTree}},
		Spec: v1.PersistentVolumeSpec{
			StorageClassName: testClass,
			PersistentVolumeSource: v1.PersistentVolumeSource{
				AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: volumeID, FSType: "ext4"},
			},
			ClaimRef:                      &v1.ObjectReference{Namespace: testNamespace, Name: "db"},
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeReleased},
	}
}

func TestInTreePVIsDeletedThroughTheDriverWithItsTranslatedHandle(t *testing.T) {
	e := migratedEnv(t, envObjects{})
	if err := e.prov.Delete(context.Background(), inTreePV("aws://eu-west-1a/vol-0123456789abcdef0")); err != nil {
		t.Fatal(err)
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "vol-0123456789abcdef0" {
		t.Fatalf("deletes = %v, want the EBS volume id", e.csi.deletes)
	}
}

func TestInTreePVUsesTheTranslatedClassSecret(t *testing.T) {
	class := inTreeClass(map[string]string{
		"csi.storage.k8s.io/provisioner-secret-name":      "creds",
		"csi.storage.k8s.io/provisioner-secret-namespace": "${pvc.namespace}",
	})
	e := migratedEnv(t, envObjects{
		classes: []*storagev1.StorageClass{class},
		secrets: []*v1.Secret{testutil.NewSecret(testNamespace, "creds", map[string]string{"key": "value"})},
	})
	if err := e.prov.Delete(context.Background(), inTreePV("vol-1")); err != nil {
		t.Fatal(err)
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].Secrets["key"] != "value" {
		t.Fatalf("deletes = %v, want the class's provisioner secret", e.csi.deletes)
	}
}

func TestInTreePVIsNotOursWithoutMigration(t *testing.T) {
	e := newEnv(t, envObjects{})
	err := e.prov.Delete(context.Background(), inTreePV("vol-1"))
	var ignored *controller.IgnoredError
	if !errors.As(err, &ignored) || len(e.csi.deletes) != 0 {
		t.Fatalf("err %v, deletes %v; want the PV ignored", err, e.csi.deletes)
	}
}

// A clone of an in-tree claim into an in-tree class: the source's volume
// is named by its translated handle and protected like any clone source.
func TestInTreeCloneProtectsItsInTreeSource(t *testing.T) {
	source, pv, clone := cloneFixture()
	pv.Spec.CSI = nil
	pv.Spec.AWSElasticBlockStore = &v1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-golden"}
	clone.Annotations = migratedClaim().Annotations
	e := migratedEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{source, clone}, volumes: []*v1.PersistentVolume{pv}})
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		got, err := e.client.CoreV1().PersistentVolumeClaims(testNamespace).Get(context.Background(), source.Name, metav1.GetOptions{})
		if err != nil || !finalizer.Has(got, provisionstate.CloningProtectionFinalizer) {
			t.Errorf("source claim lacks the cloning-protection finalizer during CreateVolume (err %v)", err)
		}
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "vol-copy", ContentSource: req.VolumeContentSource}}, nil
	}
	pvOut, _, err := e.provision(t, clone, inTreeClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).VolumeContentSource.GetVolume().GetVolumeId(); got != "vol-golden" {
		t.Errorf("content source volume = %q, want the in-tree source's vol-golden", got)
	}
	if pvOut.Spec.AWSElasticBlockStore == nil || pvOut.Spec.AWSElasticBlockStore.VolumeID != "vol-copy" {
		t.Errorf("clone PV source = %+v, want an in-tree vol-copy", pvOut.Spec.PersistentVolumeSource)
	}
}
