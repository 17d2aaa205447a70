package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

func provision(t *testing.T, e *protectionEnv, claim *v1.PersistentVolumeClaim) (*v1.PersistentVolume, controller.ProvisioningState, error) {
	t.Helper()
	return e.prov.Provision(context.Background(), controller.ProvisionOptions{StorageClass: newClass(nil), PVC: claim})
}

func hasProvisioningFinalizer(c *v1.PersistentVolumeClaim) bool {
	return c != nil && hasFinalizer(c, ProvisioningProtectionFinalizer)
}

func TestProtectionAddsFinalizerBeforeCreateVolume(t *testing.T) {
	claim := newClaim("db", "1Gi")
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{newClass(nil)}})
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		if !hasProvisioningFinalizer(e.claim(t, "db")) {
			t.Error("CreateVolume was called before the provisioning-protection finalizer was on the claim")
		}
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "v1"}}, nil
	}
	if _, _, err := provision(t, e, claim); err != nil {
		t.Fatal(err)
	}
	if got := e.metric(t, "finalizers_added_total"); got != 1 {
		t.Fatalf("finalizers added = %v, want 1", got)
	}
	if got := e.claim(t, "db").Finalizers; len(got) != 1 {
		t.Fatalf("finalizers = %v; only ours may have been added", got)
	}
}

func TestProtectionWithoutFinalizerWriteNeverCallsCreateVolume(t *testing.T) {
	claim := newClaim("db", "1Gi")
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{claim}})
	e.client.PrependReactor("patch", "persistentvolumeclaims", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, "db", nil)
	})
	_, state, err := provision(t, e, claim)
	if err == nil || !strings.Contains(err.Error(), "must allow patch") {
		t.Fatalf("err = %v, want a clear RBAC error", err)
	}
	if state != controller.ProvisioningNoChange || len(e.csi.creates) != 0 {
		t.Fatalf("state %s after %d CreateVolume calls; want a retry and no call", state, len(e.csi.creates))
	}
}

func TestProtectionNeverStartsCreateVolumeForDeletedClaim(t *testing.T) {
	claim := newClaim("db", "1Gi")
	now := metav1.Now()
	claim.DeletionTimestamp = &now
	e := startProtection(t, protectionSetup{})
	_, _, err := provision(t, e, claim)
	if _, ok := err.(*controller.IgnoredError); !ok {
		t.Fatalf("err = %v, want IgnoredError", err)
	}
	if len(e.csi.creates) != 0 {
		t.Fatal("no CreateVolume may start for a claim being deleted")
	}
}

func TestProtectionGateOffProvisionsWithoutFinalizer(t *testing.T) {
	claim := newClaim("db", "1Gi")
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{claim}, gateOff: true})
	if _, _, err := provision(t, e, claim); err != nil {
		t.Fatal(err)
	}
	if hasProvisioningFinalizer(e.claim(t, "db")) || len(e.csi.creates) != 1 {
		t.Fatal("with the gate off the claim gets no finalizer and is provisioned")
	}
}

func claimPV(claim *v1.PersistentVolumeClaim) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + testClaimUID},
		Spec:       v1.PersistentVolumeSpec{ClaimRef: &v1.ObjectReference{Namespace: testNamespace, Name: claim.Name, UID: claim.UID}},
	}
}

func TestProtectionReleasesClaimOnceBound(t *testing.T) {
	claim := newClaim("db", "1Gi")
	claim.Finalizers = []string{"kubernetes.io/pvc-protection", ProvisioningProtectionFinalizer}
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{claim}, volumes: []*v1.PersistentVolume{claimPV(claim)}})
	time.Sleep(200 * time.Millisecond) // time for a removal racing the binder
	if !hasProvisioningFinalizer(e.claim(t, "db")) {
		t.Fatal("the finalizer must wait for the binder to bind the claim")
	}
	bound := e.claim(t, "db")
	bound.Spec.VolumeName = "pvc-" + testClaimUID
	bound.Status.Phase = v1.ClaimBound
	if _, err := e.client.CoreV1().PersistentVolumeClaims(testNamespace).Update(context.Background(), bound, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the finalizer to go", func() bool { return !hasProvisioningFinalizer(e.claim(t, "db")) })
	if got := e.claim(t, "db").Finalizers; len(got) != 1 || got[0] != "kubernetes.io/pvc-protection" {
		t.Fatalf("finalizers = %v; others must stay", got)
	}
	if len(e.csi.creates) != 0 {
		t.Fatal("a claim with a PV needs no driver call")
	}
}

func TestProtectionKeepsFinalizerOnLiveClaimWithoutPV(t *testing.T) {
	claim := newClaim("db", "1Gi")
	claim.Finalizers = []string{ProvisioningProtectionFinalizer}
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{claim}})
	time.Sleep(200 * time.Millisecond) // time for a wrong removal
	if !hasProvisioningFinalizer(e.claim(t, "db")) {
		t.Fatal("the finalizer must stay while provisioning may still happen")
	}
}

func TestProtectionGateOffClearsStaleFinalizer(t *testing.T) {
	claim := newClaim("db", "1Gi")
	claim.Finalizers = []string{ProvisioningProtectionFinalizer}
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{claim}, gateOff: true})
	eventually(t, "the stale finalizer to go", func() bool { return !hasProvisioningFinalizer(e.claim(t, "db")) })
	if len(e.csi.creates) != 0 {
		t.Fatal("clearing a stale finalizer with the gate off needs no driver call")
	}
}

// deletedDuringProvisioning marks the claim deleted while it holds the
// finalizer, as a restarted sidecar finds it. The fake clientset has no
// finalizer handling, so the deletion timestamp is written directly and
// "released" below means the finalizer is gone.
func deletedDuringProvisioning(t *testing.T, e *protectionEnv) {
	t.Helper()
	claim := e.claim(t, "db")
	now := metav1.Now()
	claim.DeletionTimestamp = &now
	if _, err := e.client.CoreV1().PersistentVolumeClaims(testNamespace).Update(context.Background(), claim, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func released(t *testing.T, e *protectionEnv) func() bool {
	return func() bool { return !hasProvisioningFinalizer(e.claim(t, "db")) }
}

func heldClaim() *v1.PersistentVolumeClaim {
	claim := newClaim("db", "1Gi")
	claim.Finalizers = []string{ProvisioningProtectionFinalizer}
	return claim
}

func TestProtectionDeletesVolumeOfClaimDeletedDuringProvisioning(t *testing.T) {
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{heldClaim()}, classes: []*storagev1.StorageClass{newClass(nil)}})
	deletedDuringProvisioning(t, e)
	eventually(t, "the claim to be released", released(t, e))
	if len(e.csi.creates) != 1 || e.csi.creates[0].Name != "pvc-"+testClaimUID {
		t.Fatalf("creates = %v, want one CreateVolume by the claim's volume name", e.csi.creates)
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "handle-pvc-"+testClaimUID {
		t.Fatalf("deletes = %v, want the found volume deleted", e.csi.deletes)
	}
	// Both are updated after the write that released the claim returns,
	// which the API shows first.
	eventually(t, "abandoned volumes deleted = 1", func() bool { return e.metric(t, "abandoned_volumes_deleted_total") == 1 })
	eventually(t, "no held claim after the release", func() bool { return e.metric(t, "held_claims") == 0 })
	var events string
	eventually(t, "the hold, abandoned-volume and release events", func() bool {
		events += strings.Join(e.events(), "\n") + "\n"
		return strings.Contains(events, ReasonDeletionHeld) && strings.Contains(events, ReasonAbandonedVolume) &&
			strings.Contains(events, ReasonDeletionReleased)
	})
}

func TestProtectionReleasesDeletedClaimWhenDriverCreatedNothing(t *testing.T) {
	fake := &fakeCSI{createFn: func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return nil, status.Error(codes.InvalidArgument, "bad parameters")
	}}
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{heldClaim()}, classes: []*storagev1.StorageClass{newClass(nil)}, csi: fake})
	deletedDuringProvisioning(t, e)
	eventually(t, "the claim to be released", released(t, e))
	if len(e.csi.deletes) != 0 {
		t.Fatal("nothing was created, so nothing is deleted")
	}
}

func TestProtectionHoldsDeletedClaimWhileDriverMayStillCreate(t *testing.T) {
	for _, code := range []codes.Code{codes.Unavailable, codes.DeadlineExceeded, codes.AlreadyExists} {
		t.Run(code.String(), func(t *testing.T) {
			fake := &fakeCSI{createFn: func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
				return nil, status.Error(code, "not now")
			}}
			e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{heldClaim()}, classes: []*storagev1.StorageClass{newClass(nil)}, csi: fake})
			deletedDuringProvisioning(t, e)
			eventually(t, "a CreateVolume", func() bool { fake.mu.Lock(); defer fake.mu.Unlock(); return len(fake.creates) > 0 })
			eventually(t, "the held-claims gauge", func() bool { return e.metric(t, "held_claims") == 1 })
			if !hasProvisioningFinalizer(e.claim(t, "db")) {
				t.Fatal("the claim must stay while a volume may exist")
			}
		})
	}
}

func TestProtectionWaitsForRunningCreateVolume(t *testing.T) {
	release := make(chan struct{})
	fake := &fakeCSI{createFn: func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		<-release
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "v1"}}, nil
	}}
	claim := newClaim("db", "1Gi")
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{newClass(nil)}, csi: fake})
	done := make(chan error, 1)
	go func() { _, _, err := provision(t, e, claim); done <- err }()
	eventually(t, "CreateVolume to start", func() bool { fake.mu.Lock(); defer fake.mu.Unlock(); return len(fake.creates) == 1 })
	deletedDuringProvisioning(t, e)
	eventually(t, "the hold", func() bool { return e.metric(t, "held_claims") == 1 })
	if !hasProvisioningFinalizer(e.claim(t, "db")) {
		t.Fatal("the claim must be held while CreateVolume runs")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The lib now saves the PV; once it exists the claim is released.
	pv := claimPV(claim)
	time.Sleep(100 * time.Millisecond) // time for a wrong release before the PV exists
	if !hasProvisioningFinalizer(e.claim(t, "db")) {
		t.Fatal("the claim must be held until its PV is saved")
	}
	if _, err := e.client.CoreV1().PersistentVolumes().Create(context.Background(), pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the claim to be released", released(t, e))
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.creates) != 1 || len(fake.deletes) != 0 {
		t.Fatalf("creates %d deletes %d: the PV owns the volume, no second call is needed", len(fake.creates), len(fake.deletes))
	}
}

func TestProtectionNeverRecreatesAVolumeItAlreadyFoundAndDeleted(t *testing.T) {
	claim := heldClaim()
	// A sidecar that died after DeleteVolume left the handle on the claim.
	claim.Annotations = map[string]string{AnnAbandonedVolume: "handle-found-before"}
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{newClass(nil)}})
	deletedDuringProvisioning(t, e)
	eventually(t, "the claim to be released", released(t, e))
	e.csi.mu.Lock()
	defer e.csi.mu.Unlock()
	if len(e.csi.creates) != 0 {
		t.Fatalf("CreateVolume was called %d times: it would make the volume again", len(e.csi.creates))
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "handle-found-before" {
		t.Fatalf("deletes = %v, want the recorded handle deleted", e.csi.deletes)
	}
}

func TestProtectionRecordsFoundVolumeBeforeDeletingIt(t *testing.T) {
	e := startProtection(t, protectionSetup{claims: []*v1.PersistentVolumeClaim{heldClaim()}, classes: []*storagev1.StorageClass{newClass(nil)}})
	e.csi.deleteFn = func(req *csi.DeleteVolumeRequest) {
		if got := e.claim(t, "db").Annotations[AnnAbandonedVolume]; got != req.VolumeId {
			t.Errorf("during DeleteVolume the claim records %q, want %q", got, req.VolumeId)
		}
	}
	deletedDuringProvisioning(t, e)
	eventually(t, "the claim to be released", released(t, e))
}
