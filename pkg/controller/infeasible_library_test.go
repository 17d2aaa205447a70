package controller

import (
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
)

// Upstream calls CreateVolume once for an infeasible claim and not again
// for --retry-interval-max; the library v10 alone would retry it at its
// back-off pace.
func TestLibraryCallsCreateVolumeOnceForAnInfeasibleClaimUntilTheHoldEnds(t *testing.T) {
	claim := newClaim("db", "1Gi")
	claim.Annotations = map[string]string{driverscope.AnnStorageProvisioner: testDriver}
	l := newLiveLibrary(t, []runtime.Object{claim, newClass(nil)}, func(o *Options) { o.RetryIntervalMax = time.Minute })
	refuse := true
	l.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		// Only ever called from the library's one worker.
		if refuse {
			refuse = false
			return nil, status.Error(codes.InvalidArgument, `unknown pool "gold"`)
		}
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "handle-" + req.Name, CapacityBytes: req.CapacityRange.GetRequiredBytes()}}, nil
	}
	l.start(t)

	var events []string
	testutil.Eventually(t, 10*time.Second, "the infeasible event", func() bool {
		events = append(events, l.events.Drain()...)
		return len(events) > 0
	})
	if !strings.HasPrefix(events[0], "Warning ProvisioningFailed "+infeasibleMessage) {
		t.Fatalf("events %q, want the infeasible one", events)
	}

	// Any change of the claim brings it to the library again.
	touched := testutil.Update(t, l.api.Client.CoreV1().PersistentVolumeClaims(testNamespace), "db", func(c *v1.PersistentVolumeClaim) {
		c.Labels = map[string]string{"touched": "yes"}
	})
	testutil.Eventually(t, 10*time.Second, "the library to look at the changed claim", func() bool {
		_, asked := l.qualifier.answer(touched.ResourceVersion)
		return asked
	})
	if should, _ := l.qualifier.answer(touched.ResourceVersion); should {
		t.Fatal("the claim was offered for provisioning during the hold")
	}
	if n := l.creates(); n != 1 {
		t.Fatalf("%d CreateVolume calls during the hold, want 1", n)
	}

	// The hold's end alone brings the claim back.
	l.clock.Step(time.Minute)
	testutil.Eventually(t, 10*time.Second, "the PV provisioned after the hold", func() bool {
		_, ok := testutil.Find(t, l.api.Client.CoreV1().PersistentVolumes(), "pvc-"+testClaimUID)
		return ok
	})
	if n := l.creates(); n != 2 {
		t.Fatalf("%d CreateVolume calls, want the infeasible one and one after the hold", n)
	}
	// The library still counts the infeasible attempt as failed.
	if v := testutil.Metric(t, l.api.Registry, "test_persistentvolumeclaim_provision_failed_total", "class", testClass); v != 1 {
		t.Fatalf("the library counted %v failed attempts, want 1", v)
	}
}
