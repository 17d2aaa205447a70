package controller

import (
	"context"
	"maps"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

func attributesClass(name, driver string, params map[string]string) *storagev1.VolumeAttributesClass {
	return &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: name}, DriverName: driver, Parameters: params}
}

func claimWithAttributesClass(className string) *v1.PersistentVolumeClaim {
	claim := newClaim("db", "1Gi")
	claim.Spec.VolumeAttributesClassName = &className
	return claim
}

// attributesClassesOn turns the gate on for a driver with MODIFY_VOLUME.
func attributesClassesOn(o *Options) {
	o.Features.VolumeAttributesClass = true
	o.ControllerCapabilities[csi.ControllerServiceCapability_RPC_MODIFY_VOLUME] = true
}

var goldIOPS = map[string]string{"iops": "3000", "throughput": "125"}

func TestClaimWithAttributesClassGetsItsParametersAsMutableParameters(t *testing.T) {
	e := newEnv(t, envObjects{attributesClasses: []*storagev1.VolumeAttributesClass{attributesClass("gold", testDriver, goldIOPS)}}, attributesClassesOn)
	pv, state, err := e.provision(t, claimWithAttributesClass("gold"), newClass(map[string]string{"type": "ssd"}), nil)
	if err != nil || state != controller.ProvisioningFinished {
		t.Fatalf("state %v, err %v", state, err)
	}
	req := e.csi.lastCreate(t)
	if !maps.Equal(req.MutableParameters, goldIOPS) {
		t.Errorf("mutable parameters = %v, want the class's %v", req.MutableParameters, goldIOPS)
	}
	if req.Parameters["type"] != "ssd" || req.Parameters["iops"] != "" {
		t.Errorf("parameters = %v, want the StorageClass's alone", req.Parameters)
	}
	if got := pv.Spec.VolumeAttributesClassName; got == nil || *got != "gold" {
		t.Errorf("PV volumeAttributesClassName = %v, want gold so that the binder binds it", got)
	}
}

func TestClaimWithoutAttributesClassGetsNoMutableParameters(t *testing.T) {
	e := newEnv(t, envObjects{}, attributesClassesOn)
	empty := claimWithAttributesClass("")
	for _, claim := range []*v1.PersistentVolumeClaim{newClaim("db", "1Gi"), empty} {
		pv, _, err := e.provision(t, claim, newClass(nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		if req := e.csi.lastCreate(t); req.MutableParameters != nil {
			t.Errorf("mutable parameters = %v, want none", req.MutableParameters)
		}
		if pv.Spec.VolumeAttributesClassName != nil {
			t.Errorf("PV volumeAttributesClassName = %q, want none", *pv.Spec.VolumeAttributesClassName)
		}
	}
}

func TestAttributesClassIsIgnoredWithTheGateOff(t *testing.T) {
	// No class exists and the driver has no MODIFY_VOLUME: with the gate
	// off neither matters.
	e := newEnv(t, envObjects{})
	pv, _, err := e.provision(t, claimWithAttributesClass("gold"), newClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if req := e.csi.lastCreate(t); req.MutableParameters != nil || pv.Spec.VolumeAttributesClassName != nil {
		t.Errorf("mutable parameters %v, PV class %v: want the class ignored", req.MutableParameters, pv.Spec.VolumeAttributesClassName)
	}
}

func TestAttributesClassNeedsModifyVolume(t *testing.T) {
	e := newEnv(t, envObjects{attributesClasses: []*storagev1.VolumeAttributesClass{attributesClass("gold", testDriver, goldIOPS)}},
		func(o *Options) { o.Features.VolumeAttributesClass = true })
	_, state, err := e.provision(t, claimWithAttributesClass("gold"), newClass(nil), nil)
	want := "CSI driver does not support VolumeAttributesClass: controller MODIFY_VOLUME capability is not reported"
	if err == nil || err.Error() != want || state != controller.ProvisioningFinished {
		t.Fatalf("state %v, err %v; want Finished and %q", state, err, want)
	}
	if len(e.csi.creates) != 0 {
		t.Error("CreateVolume was called")
	}
}

func TestMissingAttributesClassIsRetriedUntilItExists(t *testing.T) {
	e := newEnv(t, envObjects{}, attributesClassesOn)
	claim := claimWithAttributesClass("gold")
	_, state, err := e.provision(t, claim, newClass(nil), nil)
	if !apierrors.IsNotFound(err) || state != controller.ProvisioningNoChange {
		t.Fatalf("state %v, err %v; want NoChange and the API's NotFound", state, err)
	}
	if len(e.csi.creates) != 0 {
		t.Fatal("CreateVolume was called without the class")
	}

	// The lib retries with back-off; the class created meanwhile is read.
	testutil.Create(t, e.client.StorageV1().VolumeAttributesClasses(), attributesClass("gold", testDriver, goldIOPS))
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).MutableParameters; !maps.Equal(got, goldIOPS) {
		t.Errorf("mutable parameters = %v, want %v", got, goldIOPS)
	}
}

func TestAttributesClassOfAnotherDriverIsRefused(t *testing.T) {
	e := newEnv(t, envObjects{attributesClasses: []*storagev1.VolumeAttributesClass{attributesClass("gold", "other.csi.io", goldIOPS)}}, attributesClassesOn)
	_, state, err := e.provision(t, claimWithAttributesClass("gold"), newClass(nil), nil)
	want := "VAC gold referenced in PVC is for driver other.csi.io which does not match driver name " + testDriver
	if err == nil || err.Error() != want || state != controller.ProvisioningFinished {
		t.Fatalf("state %v, err %v; want Finished and %q", state, err, want)
	}
	if len(e.csi.creates) != 0 {
		t.Error("CreateVolume was called")
	}
}

func TestReplayAsksWithTheAttributesClassParameters(t *testing.T) {
	claim := deletedClaim()
	claim.Spec.VolumeAttributesClassName = ptr.To("gold")
	e := newEnv(t, envObjects{
		claims:            []*v1.PersistentVolumeClaim{claim},
		classes:           []*storagev1.StorageClass{newClass(nil)},
		attributesClasses: []*storagev1.VolumeAttributesClass{attributesClass("gold", testDriver, goldIOPS)},
	}, protectionOn, attributesClassesOn)
	if done, err := e.prov.ReplayAndDelete(context.Background(), claim); !done || err != nil {
		t.Fatalf("done %v, err %v", done, err)
	}
	if got := e.csi.lastCreate(t).MutableParameters; !maps.Equal(got, goldIOPS) {
		t.Errorf("replayed mutable parameters = %v, want the first call's %v", got, goldIOPS)
	}
	if len(e.csi.deletes) != 1 {
		t.Errorf("deletes = %v, want the found volume deleted", e.csi.deletes)
	}
}

func TestReplayGoesOnWhenTheAttributesClassIsGone(t *testing.T) {
	claim := deletedClaim()
	claim.Spec.VolumeAttributesClassName = ptr.To("gold")
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{newClass(nil)}},
		protectionOn, attributesClassesOn)
	if done, err := e.prov.ReplayAndDelete(context.Background(), claim); !done || err != nil {
		t.Fatalf("done %v, err %v: a deleted class must not keep the volume", done, err)
	}
	if len(e.csi.deletes) != 1 {
		t.Errorf("deletes = %v, want the found volume deleted", e.csi.deletes)
	}
}

// A clone naming a class is protected like any clone and gets the class.
func TestCloneWithAttributesClassProtectsItsSource(t *testing.T) {
	source, pv, clone := cloneFixture()
	clone.Spec.VolumeAttributesClassName = ptr.To("gold")
	e := newEnv(t, envObjects{
		claims:            []*v1.PersistentVolumeClaim{source, clone},
		volumes:           []*v1.PersistentVolume{pv},
		attributesClasses: []*storagev1.VolumeAttributesClass{attributesClass("gold", testDriver, goldIOPS)},
	}, attributesClassesOn)
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		got, err := e.client.CoreV1().PersistentVolumeClaims(testNamespace).Get(context.Background(), source.Name, metav1.GetOptions{})
		if err != nil || !finalizer.Has(got, provisionstate.CloningProtectionFinalizer) {
			t.Errorf("source claim lacks the cloning-protection finalizer during CreateVolume (err %v)", err)
		}
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "copy", ContentSource: req.VolumeContentSource}}, nil
	}
	if _, _, err := e.provision(t, clone, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.csi.lastCreate(t).MutableParameters; !maps.Equal(got, goldIOPS) {
		t.Errorf("mutable parameters = %v, want %v", got, goldIOPS)
	}
}
