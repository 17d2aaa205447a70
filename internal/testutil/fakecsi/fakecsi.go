// Package fakecsi is a CSI controller plugin for tests of what a sidecar
// asks a driver at start-up, served on a unix socket.
package fakecsi

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Driver answers discovery as its fields say, and ListVolumes with an empty
// list.
type Driver struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedControllerServer

	Name           string
	PluginCaps     []csi.PluginCapability_Service_Type
	ControllerCaps []csi.ControllerServiceCapability_RPC_Type
	// NotReadyProbes is how many Probe calls answer "not ready" first.
	NotReadyProbes int32
	// ProbeErr, if set, fails every Probe.
	ProbeErr error

	// The calls of each kind so far.
	Probes, ControllerCapsCalls, ListVolumesCalls atomic.Int32
}

func (d *Driver) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: d.Name, VendorVersion: "test"}, nil
}

func (d *Driver) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	rsp := &csi.GetPluginCapabilitiesResponse{}
	for _, c := range d.PluginCaps {
		rsp.Capabilities = append(rsp.Capabilities, &csi.PluginCapability{
			Type: &csi.PluginCapability_Service_{Service: &csi.PluginCapability_Service{Type: c}},
		})
	}
	return rsp, nil
}

func (d *Driver) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	n := d.Probes.Add(1)
	if d.ProbeErr != nil {
		return nil, d.ProbeErr
	}
	return &csi.ProbeResponse{Ready: wrapperspb.Bool(n > d.NotReadyProbes)}, nil
}

func (d *Driver) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	d.ControllerCapsCalls.Add(1)
	rsp := &csi.ControllerGetCapabilitiesResponse{}
	for _, c := range d.ControllerCaps {
		rsp.Capabilities = append(rsp.Capabilities, &csi.ControllerServiceCapability{
			Type: &csi.ControllerServiceCapability_Rpc{Rpc: &csi.ControllerServiceCapability_RPC{Type: c}},
		})
	}
	return rsp, nil
}

func (d *Driver) ListVolumes(context.Context, *csi.ListVolumesRequest) (*csi.ListVolumesResponse, error) {
	d.ListVolumesCalls.Add(1)
	return &csi.ListVolumesResponse{}, nil
}

// Serve serves d on a unix socket and returns its path and a function that
// stops it. Stop it only after every connection to it is closed: a sidecar
// exits when an established connection is lost.
func Serve(t testing.TB, d *Driver) (string, func()) {
	t.Helper()
	// Not t.TempDir: with a long test name its path can pass the ~108
	// bytes a socket path may have.
	dir, err := os.MkdirTemp("", "fakecsi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "csi.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	csi.RegisterIdentityServer(srv, d)
	csi.RegisterControllerServer(srv, d)
	go func() { _ = srv.Serve(lis) }()
	return sock, srv.Stop
}
