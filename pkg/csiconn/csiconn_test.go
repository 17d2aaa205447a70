package csiconn

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/testutil/fakecsi"
)

// serve starts d on a unix socket and returns a connection to it. The
// connection is closed before the server stops: Connect exits the process
// when an established connection is lost.
func serve(t *testing.T, d *fakecsi.Driver) *grpc.ClientConn {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	sock, stop := fakecsi.Serve(t, d)
	t.Cleanup(stop)

	conn, err := Connect(ctx, "unix://"+sock, metrics.NewCSIMetricsManagerForSidecar(""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func fullDriver() *fakecsi.Driver {
	return &fakecsi.Driver{
		Name: "hostpath.csi.k8s.io",
		PluginCaps: []csi.PluginCapability_Service_Type{
			csi.PluginCapability_Service_CONTROLLER_SERVICE,
			csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS,
		},
		ControllerCaps: []csi.ControllerServiceCapability_RPC_Type{
			csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME,
			csi.ControllerServiceCapability_RPC_PUBLISH_UNPUBLISH_VOLUME,
		},
	}
}

func TestDiscover(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	conn := serve(t, fullDriver())

	info, err := Discover(ctx, conn, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "hostpath.csi.k8s.io" {
		t.Errorf("name %q", info.Name)
	}
	if !info.PluginCapabilities[csi.PluginCapability_Service_CONTROLLER_SERVICE] {
		t.Error("CONTROLLER_SERVICE missing")
	}
	if !info.ControllerCapabilities[csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME] {
		t.Error("CREATE_DELETE_VOLUME missing")
	}
	if !info.SupportsTopology() {
		t.Error("topology must be reported")
	}
	if err := info.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestDiscoverWaitsForReady(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := fullDriver()
	d.NotReadyProbes = 1
	conn := serve(t, d)

	if _, err := Discover(ctx, conn, time.Second); err != nil {
		t.Fatal(err)
	}
	if got := d.Probes.Load(); got < 2 {
		t.Errorf("probed %d times, want at least 2", got)
	}
}

func TestDiscoverStopsWithContext(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := fullDriver()
	d.NotReadyProbes = 1 << 30
	conn := serve(t, d)

	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err := Discover(ctx, conn, time.Second)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want deadline exceeded", err)
	}
}

func TestDiscoverProbeError(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := fullDriver()
	d.ProbeErr = status.Error(codes.FailedPrecondition, "backend down")
	conn := serve(t, d)

	_, err := Discover(ctx, conn, time.Second)
	if err == nil || !strings.Contains(err.Error(), "backend down") {
		t.Errorf("got %v, want the probe failure", err)
	}
}

func TestDiscoverEmptyName(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := fullDriver()
	d.Name = ""
	conn := serve(t, d)

	_, err := Discover(ctx, conn, time.Second)
	if err == nil || !strings.Contains(err.Error(), "name") {
		t.Errorf("got %v, want an error about the driver name", err)
	}
}

func TestValidateNoControllerService(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := fullDriver()
	d.PluginCaps = nil
	conn := serve(t, d)

	info, err := Discover(ctx, conn, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if n := d.ControllerCapsCalls.Load(); n != 0 {
		t.Errorf("ControllerGetCapabilities called %d times on a driver without controller service", n)
	}
	err = info.Validate()
	if err == nil {
		t.Fatal("expected an error")
	}
	for _, want := range []string{"hostpath.csi.k8s.io", "CONTROLLER_SERVICE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not mention %s", err, want)
		}
	}
}

func TestValidateNoCreateDelete(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := fullDriver()
	d.ControllerCaps = []csi.ControllerServiceCapability_RPC_Type{
		csi.ControllerServiceCapability_RPC_PUBLISH_UNPUBLISH_VOLUME,
	}
	conn := serve(t, d)

	info, err := Discover(ctx, conn, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	err = info.Validate()
	if err == nil {
		t.Fatal("expected an error")
	}
	for _, want := range []string{"hostpath.csi.k8s.io", "CREATE_DELETE_VOLUME"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not mention %s", err, want)
		}
	}
}

func TestConnectNoSocket(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	sock := filepath.Join(t.TempDir(), "missing.sock")
	_, err := Connect(ctx, sock, nil)
	if err == nil || !strings.Contains(err.Error(), sock) {
		t.Errorf("got %v, want an error naming %s", err, sock)
	}
}
