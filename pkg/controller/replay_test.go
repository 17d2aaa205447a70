package controller

import (
	"context"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// deletedClaim is a claim deleted while it held the provisioning-protection
// finalizer, as a restarted sidecar finds it.
func deletedClaim() *v1.PersistentVolumeClaim {
	claim := newClaim("db", "1Gi")
	claim.Finalizers = []string{provisionstate.ProvisioningProtectionFinalizer}
	now := metav1.Now()
	claim.DeletionTimestamp = &now
	return claim
}

func replayEnv(t *testing.T, claim *v1.PersistentVolumeClaim, mutate ...func(*Options)) *env {
	t.Helper()
	return newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{newClass(nil)}},
		append([]func(*Options){protectionOn}, mutate...)...)
}

func TestReplayDeletesTheVolumeItFinds(t *testing.T) {
	claim := deletedClaim()
	m := NewMetrics()
	registry := testutil.NewRegistry(m)
	e := replayEnv(t, claim, func(o *Options) { o.Metrics = m })
	done, err := e.prov.ReplayAndDelete(context.Background(), claim)
	if err != nil || !done {
		t.Fatalf("done %v, err %v", done, err)
	}
	if len(e.csi.creates) != 1 || e.csi.creates[0].Name != "pvc-"+testClaimUID {
		t.Fatalf("creates = %v, want one CreateVolume by the claim's volume name", e.csi.creates)
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "handle-pvc-"+testClaimUID {
		t.Fatalf("deletes = %v, want the found volume deleted", e.csi.deletes)
	}
	if v := testutil.Metric(t, registry, "csi_provisioner_provisioning_protection_abandoned_volumes_deleted_total"); v != 1 {
		t.Fatalf("abandoned volumes deleted = %v", v)
	}
	if got := strings.Join(e.events.Drain(), "\n"); !strings.Contains(got, ReasonAbandonedVolume) {
		t.Fatalf("events %q", got)
	}
}

func TestReplayFindsNothingWhenTheDriverCreatedNothing(t *testing.T) {
	claim := deletedClaim()
	e := replayEnv(t, claim)
	e.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return nil, status.Error(codes.InvalidArgument, "bad parameters")
	}
	done, err := e.prov.ReplayAndDelete(context.Background(), claim)
	if err != nil || !done || len(e.csi.deletes) != 0 {
		t.Fatalf("done %v, err %v, deletes %v: nothing was created, so nothing is deleted", done, err, e.csi.deletes)
	}
}

func TestReplayIsNotDoneWhileTheDriverMayStillCreate(t *testing.T) {
	for _, code := range []codes.Code{codes.Unavailable, codes.DeadlineExceeded, codes.AlreadyExists} {
		t.Run(code.String(), func(t *testing.T) {
			claim := deletedClaim()
			e := replayEnv(t, claim)
			e.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
				return nil, status.Error(code, "not now")
			}
			if done, err := e.prov.ReplayAndDelete(context.Background(), claim); done || err == nil {
				t.Fatalf("done %v, err %v: a volume may exist", done, err)
			}
		})
	}
}

func TestReplayWaitsForACallRunningInThisProcess(t *testing.T) {
	claim := deletedClaim()
	calls := provisionstate.NewTracker()
	e := replayEnv(t, claim, func(o *Options) { o.Calls = calls })
	calls.Begin(claim.UID)
	if done, err := e.prov.ReplayAndDelete(context.Background(), claim); done || err != nil || len(e.csi.creates) != 0 {
		t.Fatalf("done %v, err %v, creates %d: the running call decides", done, err, len(e.csi.creates))
	}
}

func TestReplayNeverRecreatesAVolumeItAlreadyFoundAndDeleted(t *testing.T) {
	claim := deletedClaim()
	// A sidecar that died after DeleteVolume left the handle on the claim.
	claim.Annotations = map[string]string{AnnAbandonedVolume: "handle-found-before"}
	e := replayEnv(t, claim)
	if done, err := e.prov.ReplayAndDelete(context.Background(), claim); !done || err != nil {
		t.Fatalf("done %v, err %v", done, err)
	}
	if len(e.csi.creates) != 0 {
		t.Fatalf("CreateVolume was called %d times: it would make the volume again", len(e.csi.creates))
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "handle-found-before" {
		t.Fatalf("deletes = %v, want the recorded handle deleted", e.csi.deletes)
	}
}

func TestReplayRecordsTheFoundVolumeBeforeDeletingIt(t *testing.T) {
	claim := deletedClaim()
	e := replayEnv(t, claim)
	e.csi.deleteFn = func(req *csi.DeleteVolumeRequest) {
		if got := e.apiClaim(t, "db").Annotations[AnnAbandonedVolume]; got != req.VolumeId {
			t.Errorf("during DeleteVolume the claim records %q, want %q", got, req.VolumeId)
		}
	}
	if done, err := e.prov.ReplayAndDelete(context.Background(), claim); !done || err != nil {
		t.Fatalf("done %v, err %v", done, err)
	}
}

func TestReplayOfACloneAsksForTheSourceEvenWhileItIsDeleted(t *testing.T) {
	source, pv, clone := cloneFixture()
	now := metav1.Now()
	source.DeletionTimestamp = &now
	clone.Finalizers = []string{provisionstate.ProvisioningProtectionFinalizer}
	clone.DeletionTimestamp = &now
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{source, clone}, volumes: []*v1.PersistentVolume{pv},
		classes: []*storagev1.StorageClass{newClass(nil)}}, protectionOn)
	if done, err := e.prov.ReplayAndDelete(context.Background(), clone); !done || err != nil {
		t.Fatalf("done %v, err %v", done, err)
	}
	if got := e.csi.lastCreate(t).VolumeContentSource.GetVolume().GetVolumeId(); got != "golden-handle" {
		t.Fatalf("the replay asked for content source %q: it must repeat the first call", got)
	}
}
