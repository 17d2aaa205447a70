package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/csi-protect/external-provisioner/pkg/mockdriver"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// runMainEnv makes the test binary act as the command, so tests can start
// it as a real process without a separate build.
const runMainEnv = "MOCK_CSI_DRIVER_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

type process struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan struct{}
}

func start(t *testing.T, args ...string) *process {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	p := &process{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

// exitCode waits for the process and returns its exit status.
func (p *process) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("process did not exit; stderr:\n%s", p.stderr)
	}
	return p.cmd.ProcessState.ExitCode()
}

func socketDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mockcsi-cmd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func dial(t *testing.T, p *process, sock string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Wait until the driver answers.
	if _, err := csi.NewIdentityClient(conn).Probe(ctx, &csi.ProbeRequest{}, grpc.WaitForReady(true)); err != nil {
		t.Fatalf("driver never answered: %v; stderr:\n%s", err, p.stderr)
	}
	return conn
}

func TestBadFailureCodeNamesTheFlag(t *testing.T) {
	p := start(t, "--failure-code=Bogus")
	if code := p.exitCode(t); code == 0 {
		t.Fatal("bad failure code accepted")
	}
	if !strings.Contains(p.stderr.String(), "failure-code") {
		t.Fatalf("error does not name the flag:\n%s", p.stderr)
	}
}

func TestSIGTERMStopsCleanly(t *testing.T) {
	dir := socketDir(t)
	sock := filepath.Join(dir, "csi.sock")
	p := start(t, "--endpoint=unix://"+sock, "--name=cmd.example.com", "--node-id=node-1", "--topology", "--failure-code=ResourceExhausted")
	conn := dial(t, p, sock)

	info, err := csi.NewIdentityClient(conn).GetPluginInfo(context.Background(), &csi.GetPluginInfoRequest{})
	if err != nil || info.GetName() != "cmd.example.com" {
		t.Fatalf("GetPluginInfo = %v, %v", info, err)
	}
	node, err := csi.NewNodeClient(conn).NodeGetInfo(context.Background(), &csi.NodeGetInfoRequest{})
	if err != nil || node.GetAccessibleTopology().GetSegments()[mockdriver.TopologyKey] != "node-1" {
		t.Fatalf("NodeGetInfo = %v, %v", node, err)
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.exitCode(t); code != 0 {
		t.Fatalf("exit code %d after SIGTERM; stderr:\n%s", code, p.stderr)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
}

func TestExitAfterCallsKillsTheProcess(t *testing.T) {
	dir := socketDir(t)
	sock := filepath.Join(dir, "csi.sock")
	stateFile := filepath.Join(dir, "state.json")
	p := start(t, "--endpoint="+sock, "--state-file="+stateFile, "--exit-after-calls=1", "--create-delay=10ms")
	conn := dial(t, p, sock)

	resp, err := csi.NewControllerClient(conn).CreateVolume(context.Background(), &csi.CreateVolumeRequest{
		Name: "pvc-1",
		VolumeCapabilities: []*csi.VolumeCapability{{
			AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
			AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
		}},
	})
	if status.Code(err) != codes.Unavailable || resp != nil {
		t.Fatalf("CreateVolume = %v, %v; want no reply", resp, err)
	}
	if code := p.exitCode(t); code != 2 {
		t.Fatalf("exit code %d, want 2; stderr:\n%s", code, p.stderr)
	}
	vols, err := mockdriver.ReadVolumes(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(vols) != 1 || vols[0].Name != "pvc-1" {
		t.Fatalf("state after the crash: %+v", vols)
	}
}

func snapshotCapable(t *testing.T, conn *grpc.ClientConn) bool {
	t.Helper()
	resp, err := csi.NewControllerClient(conn).ControllerGetCapabilities(context.Background(), &csi.ControllerGetCapabilitiesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range resp.GetCapabilities() {
		if c.GetRpc().GetType() == csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT {
			return true
		}
	}
	return false
}

func TestSnapshotFlags(t *testing.T) {
	t.Run("on by default, with --snapshot-delay", func(t *testing.T) {
		const delay = 200 * time.Millisecond
		sock := filepath.Join(socketDir(t), "csi.sock")
		p := start(t, "--endpoint="+sock, "--snapshot-delay="+delay.String())
		conn := dial(t, p, sock)
		if !snapshotCapable(t, conn) {
			t.Fatal("CREATE_DELETE_SNAPSHOT not advertised by default")
		}
		controller := csi.NewControllerClient(conn)
		vol, err := controller.CreateVolume(context.Background(), &csi.CreateVolumeRequest{
			Name: "pvc-1",
			VolumeCapabilities: []*csi.VolumeCapability{{
				AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
				AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
			}},
		})
		if err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		if _, err := controller.CreateSnapshot(context.Background(), &csi.CreateSnapshotRequest{Name: "snap-1", SourceVolumeId: vol.GetVolume().GetVolumeId()}); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(begin); took < delay {
			t.Fatalf("CreateSnapshot took %v, want at least --snapshot-delay %v", took, delay)
		}
	})
	t.Run("--snapshots=false", func(t *testing.T) {
		sock := filepath.Join(socketDir(t), "csi.sock")
		p := start(t, "--endpoint="+sock, "--snapshots=false")
		conn := dial(t, p, sock)
		if snapshotCapable(t, conn) {
			t.Fatal("CREATE_DELETE_SNAPSHOT advertised with --snapshots=false")
		}
		_, err := csi.NewControllerClient(conn).ListSnapshots(context.Background(), &csi.ListSnapshotsRequest{})
		if status.Code(err) != codes.Unimplemented {
			t.Fatalf("ListSnapshots = %v, want Unimplemented", err)
		}
	})
}
