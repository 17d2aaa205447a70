package controller

import (
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

func protectionOn(o *Options) { o.Features.ProvisioningProtection = true }

func TestProtectionAddsFinalizerBeforeCreateVolume(t *testing.T) {
	claim := newClaim("db", "1Gi")
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn)
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		if !finalizer.Has(e.apiClaim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) {
			t.Error("CreateVolume was called before the provisioning-protection finalizer was on the claim")
		}
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "v1"}}, nil
	}
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.apiClaim(t, "db").Finalizers; len(got) != 1 {
		t.Fatalf("finalizers = %v; only ours may have been added", got)
	}
}

func TestProtectionWithoutFinalizerWriteNeverCallsCreateVolume(t *testing.T) {
	claim := newClaim("db", "1Gi")
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn)
	testutil.FailNext(e.client, -1, apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, "db", nil),
		testutil.Verb("update"), testutil.On("persistentvolumeclaims"))
	_, state, err := e.provision(t, claim, newClass(nil), nil)
	if err == nil || !strings.Contains(err.Error(), "must allow update on PersistentVolumeClaim") {
		t.Fatalf("err = %v, want a clear RBAC error", err)
	}
	if state != controller.ProvisioningNoChange || len(e.csi.creates) != 0 {
		t.Fatalf("state %s after %d CreateVolume calls; want a retry and no call", state, len(e.csi.creates))
	}
}

func TestProtectionRereadsAStaleClaimOnceBeforeCreateVolume(t *testing.T) {
	claim := newClaim("db", "1Gi")
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn)
	// An API server whose claim moved on since the cache copy (the binder
	// annotated it, say): the pinned write conflicts, the live claim is
	// read and written.
	e.client = testutil.NewClientset(claim.DeepCopy())
	e.opts.Client = e.client
	live := e.apiClaim(t, "db")
	if live.ResourceVersion == claim.ResourceVersion {
		t.Fatal("fixture: the API server's version must differ from the cache's")
	}
	prov, err := New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	e.prov = prov
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if !finalizer.Has(e.apiClaim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) || len(e.csi.creates) != 1 {
		t.Fatalf("finalizers %v after %d CreateVolume calls", e.apiClaim(t, "db").Finalizers, len(e.csi.creates))
	}
}

func TestProtectionNeverStartsCreateVolumeForDeletedClaim(t *testing.T) {
	claim := newClaim("db", "1Gi")
	now := metav1.Now()
	claim.DeletionTimestamp = &now
	e := newEnv(t, envObjects{}, protectionOn)
	_, _, err := e.provision(t, claim, newClass(nil), nil)
	if _, ok := err.(*controller.IgnoredError); !ok {
		t.Fatalf("err = %v, want IgnoredError", err)
	}
	if len(e.csi.creates) != 0 {
		t.Fatal("no CreateVolume may start for a claim being deleted")
	}
}

func TestProtectionGateOffProvisionsWithoutFinalizer(t *testing.T) {
	claim := newClaim("db", "1Gi")
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}})
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if finalizer.Has(e.apiClaim(t, "db"), provisionstate.ProvisioningProtectionFinalizer) || len(e.csi.creates) != 1 {
		t.Fatal("with the gate off the claim gets no finalizer and is provisioned")
	}
}

func TestProvisionRecordsItsCallsInTheTracker(t *testing.T) {
	claim := newClaim("db", "1Gi")
	calls := provisionstate.NewTracker()
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn, func(o *Options) { o.Calls = calls })
	e.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		if got := calls.State(claim.UID); got != provisionstate.Calling {
			t.Errorf("during CreateVolume the tracker says %v", got)
		}
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "v1"}}, nil
	}
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if got := calls.State(claim.UID); got != provisionstate.Created {
		t.Fatalf("after CreateVolume the tracker says %v, want Created", got)
	}
	calls.Begin(claim.UID)
	if _, state, err := e.provision(t, claim, newClass(nil), nil); err == nil || state != controller.ProvisioningNoChange {
		t.Fatalf("a second call while one runs: state %s, err %v", state, err)
	}
}

func TestProtectionWritesGoThroughTheProtectionClient(t *testing.T) {
	claim := newClaim("db", "1Gi")
	protection := testutil.NewClientset(claim.DeepCopy())
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, protectionOn, func(o *Options) {
		o.ProtectionClient = protection
	})
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	live := testutil.Get(t, protection.CoreV1().PersistentVolumeClaims(testNamespace), "db")
	if !finalizer.Has(live, provisionstate.ProvisioningProtectionFinalizer) {
		t.Error("the finalizer was not written through the protection client")
	}
	for _, a := range e.client.Actions() {
		if a.GetVerb() == "update" || a.GetVerb() == "patch" {
			t.Errorf("the main client wrote %s %s; protection writes have a budget of their own", a.GetVerb(), a.GetResource().Resource)
		}
	}
}
