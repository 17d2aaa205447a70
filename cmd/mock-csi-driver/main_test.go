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
	"github.com/csi-protect/external-provisioner/internal/mockdriver"
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

// TestOneProcessPerNode runs two drivers side by side, as distributed
// provisioning does with one sidecar and one driver per node: each has its
// own socket, state file and node, and answers capacity for that node only.
func TestOneProcessPerNode(t *testing.T) {
	dir := socketDir(t)
	controllers := map[string]csi.ControllerClient{}
	for _, node := range []string{"node-1", "node-2"} {
		sock := filepath.Join(dir, node+".sock")
		p := start(t, "--endpoint=unix://"+sock, "--node-id="+node, "--topology",
			"--state-file="+filepath.Join(dir, node+".json"), "--capacity=4Gi", "--pools=fast=2Gi", "--max-volume-size=3Gi")
		conn := dial(t, p, sock)
		info, err := csi.NewNodeClient(conn).NodeGetInfo(context.Background(), &csi.NodeGetInfoRequest{})
		if err != nil || info.GetNodeId() != node || len(info.GetAccessibleTopology().GetSegments()) != 1 ||
			info.GetAccessibleTopology().GetSegments()[mockdriver.TopologyKey] != node {
			t.Fatalf("%s: NodeGetInfo = %v, %v", node, info, err)
		}
		controllers[node] = csi.NewControllerClient(conn)
	}

	available := func(node, pool string) (int64, int64) {
		t.Helper()
		resp, err := controllers[node].GetCapacity(context.Background(), &csi.GetCapacityRequest{
			Parameters:         map[string]string{mockdriver.PoolParameter: pool},
			AccessibleTopology: &csi.Topology{Segments: map[string]string{mockdriver.TopologyKey: node}},
		})
		if err != nil {
			t.Fatalf("%s: GetCapacity(%q): %v", node, pool, err)
		}
		return resp.GetAvailableCapacity(), resp.GetMaximumVolumeSize().GetValue()
	}
	create := func(node, name, pool string, size int64) error {
		_, err := controllers[node].CreateVolume(context.Background(), &csi.CreateVolumeRequest{
			Name:          name,
			Parameters:    map[string]string{mockdriver.PoolParameter: pool},
			CapacityRange: &csi.CapacityRange{RequiredBytes: size},
			VolumeCapabilities: []*csi.VolumeCapability{{
				AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
				AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
			}},
			AccessibilityRequirements: &csi.TopologyRequirement{Requisite: []*csi.Topology{{Segments: map[string]string{mockdriver.TopologyKey: node}}}},
		})
		return err
	}

	const gib = int64(1) << 30
	if err := create("node-1", "pvc-1", "fast", 2*gib); err != nil {
		t.Fatal(err)
	}
	if got, maxSize := available("node-1", "fast"); got != 0 || maxSize != 0 {
		t.Fatalf("node-1 fast after a 2Gi volume: %d available, max %d; want 0, 0", got, maxSize)
	}
	if got, maxSize := available("node-2", "fast"); got != 2*gib || maxSize != 2*gib {
		t.Fatalf("node-2 fast: %d available, max %d; want 2Gi, 2Gi", got, maxSize)
	}
	if got, maxSize := available("node-1", ""); got != 4*gib || maxSize != 3*gib {
		t.Fatalf("node-1 default pool: %d available, max %d; want 4Gi, 3Gi", got, maxSize)
	}
	if err := create("node-1", "pvc-2", "fast", gib); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("CreateVolume in a full pool = %v, want ResourceExhausted", err)
	}
	if err := create("node-2", "pvc-2", "fast", gib); err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"node-1", "node-2"} {
		vols, err := mockdriver.ReadVolumes(filepath.Join(dir, node+".json"))
		if err != nil || len(vols) != 1 {
			t.Fatalf("%s state file: %d volumes (%v), want its own 1", node, len(vols), err)
		}
	}
}

// The --capacity-moving-* flags move GetCapacity's answer as
// mockdriver.MovingCapacity computes it, so another process can tell what
// the driver answers without asking.
func TestCapacityMovingFlags(t *testing.T) {
	sock := filepath.Join(socketDir(t), "csi.sock")
	p := start(t, "--endpoint=unix://"+sock, "--topology", "--pools=fast=10Gi",
		"--capacity-moving-share=1", "--capacity-moving-amplitude=0.3", "--capacity-moving-period=1h", "--capacity-moving-seed=5")
	controller := csi.NewControllerClient(dial(t, p, sock))
	m := mockdriver.Moving{Share: 1, Amplitude: 0.3, Period: time.Hour, Seed: 5}
	const size = int64(10) << 30
	before := mockdriver.MovingCapacity(m, "node-1", "fast", size, size, time.Now())
	resp, err := controller.GetCapacity(context.Background(), &csi.GetCapacityRequest{
		Parameters:         map[string]string{mockdriver.PoolParameter: "fast"},
		AccessibleTopology: &csi.Topology{Segments: map[string]string{mockdriver.TopologyKey: "node-1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	after := mockdriver.MovingCapacity(m, "node-1", "fast", size, size, time.Now())
	// An hour's boundary may fall between the two computations.
	if got := resp.GetAvailableCapacity(); got != before && got != after {
		t.Fatalf("GetCapacity = %d, want MovingCapacity's %d", got, before)
	}
	if before == size {
		t.Fatal("node-1 does not move with seed 5; the test needs a seed that moves it")
	}
}
