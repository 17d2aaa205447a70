package csiconn

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"k8s.io/klog/v2/ktesting"
)

// fakeDriver implements just enough of Identity and Controller for discovery.
type fakeDriver struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedControllerServer

	name           string
	pluginCaps     []csi.PluginCapability_Service_Type
	controllerCaps []csi.ControllerServiceCapability_RPC_Type
	// notReadyProbes is how many Probe calls answer "not ready" first.
	notReadyProbes int32
	probeErr       error

	probes           atomic.Int32
	controllerCapsRq atomic.Int32
}

func (d *fakeDriver) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: d.name, VendorVersion: "test"}, nil
}

func (d *fakeDriver) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	rsp := &csi.GetPluginCapabilitiesResponse{}
	for _, c := range d.pluginCaps {
		rsp.Capabilities = append(rsp.Capabilities, &csi.PluginCapability{
			Type: &csi.PluginCapability_Service_{Service: &csi.PluginCapability_Service{Type: c}},
		})
	}
	return rsp, nil
}

func (d *fakeDriver) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	n := d.probes.Add(1)
	if d.probeErr != nil {
		return nil, d.probeErr
	}
	return &csi.ProbeResponse{Ready: wrapperspb.Bool(n > d.notReadyProbes)}, nil
}

func (d *fakeDriver) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	d.controllerCapsRq.Add(1)
	rsp := &csi.ControllerGetCapabilitiesResponse{}
	for _, c := range d.controllerCaps {
		rsp.Capabilities = append(rsp.Capabilities, &csi.ControllerServiceCapability{
			Type: &csi.ControllerServiceCapability_Rpc{Rpc: &csi.ControllerServiceCapability_RPC{Type: c}},
		})
	}
	return rsp, nil
}

// serve starts d on a unix socket and returns a connection to it. The
// connection is closed before the server stops: Connect exits the process
// when an established connection is lost.
func serve(t *testing.T, d *fakeDriver) *grpc.ClientConn {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	sock := filepath.Join(t.TempDir(), "csi.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	csi.RegisterIdentityServer(srv, d)
	csi.RegisterControllerServer(srv, d)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)

	conn, err := Connect(ctx, "unix://"+sock, metrics.NewCSIMetricsManagerForSidecar(""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func fullDriver() *fakeDriver {
	return &fakeDriver{
		name: "hostpath.csi.k8s.io",
		pluginCaps: []csi.PluginCapability_Service_Type{
			csi.PluginCapability_Service_CONTROLLER_SERVICE,
			csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS,
		},
		controllerCaps: []csi.ControllerServiceCapability_RPC_Type{
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
	d.notReadyProbes = 1
	conn := serve(t, d)

	if _, err := Discover(ctx, conn, time.Second); err != nil {
		t.Fatal(err)
	}
	if got := d.probes.Load(); got < 2 {
		t.Errorf("probed %d times, want at least 2", got)
	}
}

func TestDiscoverStopsWithContext(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := fullDriver()
	d.notReadyProbes = 1 << 30
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
	d.probeErr = status.Error(codes.FailedPrecondition, "backend down")
	conn := serve(t, d)

	_, err := Discover(ctx, conn, time.Second)
	if err == nil || !strings.Contains(err.Error(), "backend down") {
		t.Errorf("got %v, want the probe failure", err)
	}
}

func TestDiscoverEmptyName(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := fullDriver()
	d.name = ""
	conn := serve(t, d)

	_, err := Discover(ctx, conn, time.Second)
	if err == nil || !strings.Contains(err.Error(), "name") {
		t.Errorf("got %v, want an error about the driver name", err)
	}
}

func TestValidateNoControllerService(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := fullDriver()
	d.pluginCaps = nil
	conn := serve(t, d)

	info, err := Discover(ctx, conn, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if n := d.controllerCapsRq.Load(); n != 0 {
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
	d.controllerCaps = []csi.ControllerServiceCapability_RPC_Type{
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
