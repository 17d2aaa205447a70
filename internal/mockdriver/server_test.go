package mockdriver

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

func TestIdentity(t *testing.T) {
	for _, topology := range []bool{false, true} {
		td := startDriver(t, Config{Topology: topology})
		info, err := td.identity.GetPluginInfo(callCtx(t), &csi.GetPluginInfoRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if info.GetName() != DefaultName || info.GetVendorVersion() != VendorVersion {
			t.Fatalf("GetPluginInfo = %v", info)
		}
		probe, err := td.identity.Probe(callCtx(t), &csi.ProbeRequest{})
		if err != nil || !probe.GetReady().GetValue() {
			t.Fatalf("Probe = %v, %v", probe, err)
		}
		caps, err := td.identity.GetPluginCapabilities(callCtx(t), &csi.GetPluginCapabilitiesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[csi.PluginCapability_Service_Type]bool{}
		for _, c := range caps.GetCapabilities() {
			got[c.GetService().GetType()] = true
		}
		if !got[csi.PluginCapability_Service_CONTROLLER_SERVICE] || got[csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS] != topology {
			t.Fatalf("topology %v: plugin capabilities %v", topology, got)
		}
		if td.Calls("Probe") != 1 || td.Calls("GetPluginInfo") != 1 || td.CallCounts()["GetPluginCapabilities"] != 1 {
			t.Fatalf("call counts %v", td.CallCounts())
		}
	}
}

func TestNewValidatesName(t *testing.T) {
	for _, name := range []string{"-bad", "bad.", strings.Repeat("a", 64), "has space"} {
		if _, err := New(Config{Name: name}); err == nil {
			t.Errorf("New accepted driver name %q", name)
		}
	}
	d, err := New(Config{Name: "other.example.com", NodeID: "n1"})
	if err != nil || d.Name() != "other.example.com" || d.NodeID() != "n1" {
		t.Fatalf("New = %v, %v", d, err)
	}
}

func TestUnimplementedCalls(t *testing.T) {
	td := startDriver(t, Config{})
	_, err := td.controller.ControllerPublishVolume(callCtx(t), &csi.ControllerPublishVolumeRequest{})
	wantCode(t, err, codes.Unimplemented)
	_, err = td.controller.ControllerExpandVolume(callCtx(t), &csi.ControllerExpandVolumeRequest{})
	wantCode(t, err, codes.Unimplemented)
	if got := td.Calls("ControllerExpandVolume"); got != 1 {
		t.Fatalf("unimplemented calls are not counted: %d", got)
	}
}

func TestSocketPath(t *testing.T) {
	for endpoint, want := range map[string]string{
		"unix:///run/csi/csi.sock": "/run/csi/csi.sock",
		"unix:/run/csi/csi.sock":   "/run/csi/csi.sock",
		"unix:csi.sock":            "csi.sock",
		"/run/csi/csi.sock":        "/run/csi/csi.sock",
	} {
		if got, err := SocketPath(endpoint); err != nil || got != want {
			t.Errorf("SocketPath(%q) = %q, %v; want %q", endpoint, got, err, want)
		}
	}
	for _, endpoint := range []string{"", "unix://", "tcp://127.0.0.1:9000"} {
		if _, err := SocketPath(endpoint); err == nil {
			t.Errorf("SocketPath(%q) succeeded", endpoint)
		}
	}
}

func TestListenReplacesStaleSocket(t *testing.T) {
	sock := filepath.Join(shortTempDir(t), "csi.sock")
	// A listener closed without unlinking leaves a socket nobody answers.
	stale, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = stale.Close()

	lis, err := Listen(sock)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer lis.Close()

	if _, err := Listen("unix://" + sock); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("Listen on a live socket: err = %v", err)
	}
	file := filepath.Join(shortTempDir(t), "not-a-socket")
	if err := os.WriteFile(file, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(file); err == nil {
		t.Fatal("Listen replaced a regular file")
	}
}

func TestServeStopsWhenContextEnds(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(shortTempDir(t), "sub", "csi.sock")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx, "unix://"+sock) }()
	waitFor(t, d.serving.Load)

	if err := d.ServeListener(context.Background(), &net.UnixListener{}); err == nil {
		t.Fatal("second ServeListener succeeded while serving")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
}
