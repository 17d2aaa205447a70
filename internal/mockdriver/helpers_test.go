package mockdriver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2/ktesting"
)

const gib int64 = 1 << 30

// testDriver is a driver served on a real unix socket plus clients for it.
type testDriver struct {
	*Driver
	endpoint   string
	identity   csi.IdentityClient
	controller csi.ControllerClient
	node       csi.NodeClient

	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan error
	stopErr  error
}

func startDriver(t *testing.T, cfg Config) *testDriver {
	t.Helper()
	d, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return serveDriver(t, d)
}

func serveDriver(t *testing.T, d *Driver) *testDriver {
	t.Helper()
	endpoint := "unix://" + filepath.Join(shortTempDir(t), "csi.sock")
	lis, err := Listen(endpoint)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	td := &testDriver{Driver: d, endpoint: endpoint, cancel: cancel, done: make(chan error, 1)}
	go func() { td.done <- d.ServeListener(ctx, lis) }()

	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("grpc.NewClient: %v", err)
	}
	td.identity = csi.NewIdentityClient(conn)
	td.controller = csi.NewControllerClient(conn)
	td.node = csi.NewNodeClient(conn)
	t.Cleanup(func() {
		_ = conn.Close()
		if err := td.stop(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return td
}

// stop ends Serve and returns its result; later calls return the same.
func (td *testDriver) stop() error {
	td.stopOnce.Do(func() {
		td.cancel()
		select {
		case td.stopErr = <-td.done:
		case <-time.After(2 * gracePeriod):
			td.stopErr = context.DeadlineExceeded
		}
	})
	return td.stopErr
}

// shortTempDir keeps socket paths below the unix limit of ~108 bytes,
// which t.TempDir paths with long test names can exceed.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mockcsi-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func callCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mountCap(mode csi.VolumeCapability_AccessMode_Mode) *csi.VolumeCapability {
	return &csi.VolumeCapability{
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: mode},
		AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
	}
}

func blockCap(mode csi.VolumeCapability_AccessMode_Mode) *csi.VolumeCapability {
	return &csi.VolumeCapability{
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: mode},
		AccessType: &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}},
	}
}

func createReq(name string, required int64) *csi.CreateVolumeRequest {
	req := &csi.CreateVolumeRequest{
		Name:               name,
		VolumeCapabilities: []*csi.VolumeCapability{mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)},
	}
	if required > 0 {
		req.CapacityRange = &csi.CapacityRange{RequiredBytes: required}
	}
	return req
}

func mustCreate(t *testing.T, td *testDriver, req *csi.CreateVolumeRequest) *csi.Volume {
	t.Helper()
	resp, err := td.controller.CreateVolume(callCtx(t), req)
	if err != nil {
		t.Fatalf("CreateVolume(%q): %v", req.GetName(), err)
	}
	return resp.GetVolume()
}

func cloneSource(volumeID string) *csi.VolumeContentSource {
	return &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Volume{
		Volume: &csi.VolumeContentSource_VolumeSource{VolumeId: volumeID},
	}}
}

func wantCode(t *testing.T, err error, want codes.Code) {
	t.Helper()
	if got := status.Code(err); got != want {
		t.Fatalf("got code %v (%v), want %v", got, err, want)
	}
}

// wantNoSecretValue fails if the state file holds "s3cr3t", which every
// secret value of the tests contains: the driver stores secrets' keys only.
func wantNoSecretValue(t *testing.T, stateFile string) {
	t.Helper()
	data, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cr3t") {
		t.Fatalf("state file contains a secret value:\n%s", data)
	}
}

func deleteVolume(t *testing.T, td *testDriver, id string) {
	t.Helper()
	if _, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: id}); err != nil {
		t.Fatalf("DeleteVolume(%s): %v", id, err)
	}
}
