package controller

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/go-logr/logr"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
)

// withMockDriver serves the project's mock driver on a real unix socket and
// points the provisioner at it.
func withMockDriver(t *testing.T, cfg mockdriver.Config) (*mockdriver.Driver, func(*Options)) {
	t.Helper()
	logger, _ := ktesting.NewTestContext(t)
	return serveMockDriver(t, cfg, logger)
}

// withObservedMockDriver is withMockDriver, and reports every call the
// driver failed once it is done with it.
func withObservedMockDriver(t *testing.T, cfg mockdriver.Config) (*mockdriver.Driver, func(*Options), <-chan endedCall) {
	t.Helper()
	ended := make(chan endedCall, 100)
	logger, _ := ktesting.NewTestContext(t)
	driver, useDriver := serveMockDriver(t, cfg, logr.New(callLog{LogSink: logger.GetSink(), ended: ended}))
	return driver, useDriver, ended
}

func serveMockDriver(t *testing.T, cfg mockdriver.Config, logger klog.Logger) (*mockdriver.Driver, func(*Options)) {
	t.Helper()
	dir, err := os.MkdirTemp("", "csi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cfg.Name = testDriver
	driver, err := mockdriver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "unix://" + filepath.Join(dir, "csi.sock")
	lis, err := mockdriver.Listen(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	done := make(chan error, 1)
	go func() { done <- driver.ServeListener(ctx, lis) }()
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		cancel()
		<-done
	})
	return driver, func(o *Options) { o.CSIClient = csi.NewControllerClient(conn) }
}

func TestMockDriverProvisionIsIdempotentAndDeleteEmptiesIt(t *testing.T) {
	driver, useDriver := withMockDriver(t, mockdriver.Config{})
	e := newEnv(t, envObjects{}, useDriver)
	claim := newClaim("db", "1Gi")
	first, _, err := e.provision(t, claim, newClass(map[string]string{"tier": "gold"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := e.provision(t, claim, newClass(map[string]string{"tier": "gold"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	volumes := driver.Volumes()
	if len(volumes) != 1 || first.Spec.CSI.VolumeHandle != second.Spec.CSI.VolumeHandle {
		t.Fatalf("driver holds %d volumes, handles %q and %q: a repeated Provision must find the same volume",
			len(volumes), first.Spec.CSI.VolumeHandle, second.Spec.CSI.VolumeHandle)
	}
	if volumes[0].Parameters["tier"] != "gold" || volumes[0].CapacityBytes < 1<<30 {
		t.Fatalf("driver volume = %+v", volumes[0])
	}
	first.Status.Phase = "Released"
	if err := e.prov.Delete(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	if n := len(driver.Volumes()); n != 0 {
		t.Fatalf("driver still holds %d volumes after Delete", n)
	}
}

func TestMockDriverTimeoutIsRetriedIntoExactlyOneVolume(t *testing.T) {
	driver, useDriver, ended := withObservedMockDriver(t, mockdriver.Config{Faults: mockdriver.Faults{CreateDelay: 300 * time.Millisecond}})
	e := newEnv(t, envObjects{}, useDriver, func(o *Options) { o.Timeout = 50 * time.Millisecond })
	claim := newClaim("db", "1Gi")
	_, state, err := e.provision(t, claim, newClass(nil), nil)
	if err == nil || state != controller.ProvisioningInBackground {
		t.Fatalf("state %s err %v, want a timeout that may still run", state, err)
	}
	// Until the driver has seen the cancellation it still works on the
	// name and answers a retry with Aborted, as the CSI spec lets it: the
	// retry under test is the one after that.
	select {
	case call := <-ended:
		if call.Method != "CreateVolume" {
			t.Fatalf("the driver failed %s, want the timed-out CreateVolume", call.Method)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the driver never gave up the timed-out CreateVolume")
	}
	e.prov.opts.Timeout = 5 * time.Second
	pv, state, err := e.provision(t, claim, newClass(nil), nil)
	if err != nil || state != controller.ProvisioningFinished {
		t.Fatalf("retry: state %s err %v", state, err)
	}
	volumes := driver.Volumes()
	if len(volumes) != 1 || volumes[0].ID != pv.Spec.CSI.VolumeHandle {
		t.Fatalf("driver holds %v, want exactly the PV's volume", volumes)
	}
}

func TestMockDriverUnavailableIsNotFinal(t *testing.T) {
	driver, useDriver := withMockDriver(t, mockdriver.Config{Faults: mockdriver.Faults{FailureRate: 1, FailureCode: codes.Unavailable}})
	e := newEnv(t, envObjects{}, useDriver)
	_, state, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), nil)
	if err == nil || state != controller.ProvisioningInBackground {
		t.Fatalf("state %s err %v, want InBackground", state, err)
	}
	if n := len(driver.Volumes()); n != 0 {
		t.Fatalf("driver holds %d volumes after a failed call", n)
	}
}
