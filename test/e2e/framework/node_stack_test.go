//go:build e2e

package framework

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
)

// A stack with Nodes runs one driver per node, each with its own node id,
// socket, state file and log in WorkDir/<node>/, registers the nodes (Node
// and CSINode), and refuses the one-driver accessors. Each driver's log
// counts what it served (ReadDriverCalls). Sidecars are deferred here: the
// node sidecars need --node-deployment, which the sidecar may not have.
func TestStartStackNodes(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	workDir, err := os.MkdirTemp("", "csi-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartStack(ctx, StackOptions{
		WorkDir: workDir,
		Nodes:   NodeNames(3),
		Driver:  DriverOptions{Verbosity: DriverRequestVerbosity},
		Sidecar: SidecarOptions{Deferred: true},
	})
	if err != nil {
		t.Fatalf("StartStack: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if !t.Failed() {
			os.RemoveAll(workDir)
		}
	})
	if got := s.Nodes(); !slices.Equal(got, []string{"node-1", "node-2", "node-3"}) {
		t.Fatalf("Nodes() = %v", got)
	}
	if s.Driver() != nil || s.Sidecar() != nil {
		t.Errorf("a stack with Nodes has a central driver %v or sidecar %v", s.Driver(), s.Sidecar())
	}
	if _, err := s.DriverVolumes(); err == nil {
		t.Error("DriverVolumes on a stack with Nodes: no error")
	}
	if _, err := s.StartSidecar(ctx, SidecarOptions{}); err == nil {
		t.Error("StartSidecar on a stack with Nodes: no error")
	}
	for _, node := range s.Nodes() {
		if dir := filepath.Join(workDir, node); filepath.Dir(s.NodeSocket(node)) != dir || filepath.Dir(s.NodeStateFile(node)) != dir || filepath.Dir(s.NodeDriver(node).LogFile()) != dir {
			t.Errorf("%s: socket %s, state %s, log %s; want all in %s", node, s.NodeSocket(node), s.NodeStateFile(node), s.NodeDriver(node).LogFile(), dir)
		}
		if st, err := s.NodeDriverState(node); err != nil || len(st.Volumes) != 0 {
			t.Errorf("%s: fresh driver state %+v, %v", node, st, err)
		}
		if s.NodeSidecar(node) != nil {
			t.Errorf("%s: a deferred sidecar was started", node)
		}
		n, err := s.Client().CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n.Labels[HostnameLabel] != node || n.Labels[mockdriver.TopologyKey] != node {
			t.Errorf("Node %s has labels %v", node, n.Labels)
		}
		cn, err := s.Client().StorageV1().CSINodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cn.Spec.Drivers; len(d) != 1 || d[0].Name != s.DriverName() || d[0].NodeID != node || !slices.Equal(d[0].TopologyKeys, []string{mockdriver.TopologyKey}) {
			t.Errorf("CSINode %s has drivers %+v", node, d)
		}
	}

	// Each driver is its node: a volume made without topology wishes is
	// placed on the driver's own node, and only that driver's log has it.
	name := "pvc-0b6f4a70-1c1e-4d0e-9a43-2b7c9f0e5d11"
	info := createVolume(ctx, t, s.NodeSocket("node-2"), name)
	if got := info.GetAccessibleTopology(); len(got) != 1 || got[0].GetSegments()[mockdriver.TopologyKey] != "node-2" {
		t.Errorf("node-2's driver placed the volume at %v", got)
	}
	createVolume(ctx, t, s.NodeSocket("node-2"), name)
	calls, err := s.NodeDriverCalls("node-2")
	if err != nil {
		t.Fatal(err)
	}
	if calls.Requests["CreateVolume"] != 2 || calls.CreateRequests[name] != 2 || calls.Created[name] != 1 || calls.Existed[name] != 1 || calls.Succeeded["CreateVolume"] != 2 {
		t.Errorf("node-2's driver log counts %+v; want 2 requests for %s, created once, existing once, 2 successes", calls, name)
	}
	total, err := s.AllNodeDriverCalls()
	if err != nil {
		t.Fatal(err)
	}
	if total.Requests["CreateVolume"] != 2 {
		t.Errorf("all drivers: %d CreateVolume, want node-2's 2", total.Requests["CreateVolume"])
	}

	if err := s.Cluster().DeleteNode(ctx, "node-3"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client().StorageV1().CSINodes().Get(ctx, "node-3", metav1.GetOptions{}); err == nil {
		t.Error("CSINode node-3 is still there after DeleteNode")
	}
	if err := s.Cluster().DeleteNode(ctx, "node-3"); err != nil {
		t.Errorf("DeleteNode of a deleted node: %v", err)
	}
}

func createVolume(ctx context.Context, t *testing.T, socket, name string) *csi.Volume {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	vol, err := CreateDriverVolume(ctx, socket, NewVolumeRequest(name, 1<<20))
	if err != nil {
		t.Fatalf("CreateVolume on %s: %v", socket, err)
	}
	return vol
}

// StackOptions.Nodes refuses what a node's sidecar cannot be.
func TestStartStackNodesRefusals(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	for _, opts := range []StackOptions{
		{Nodes: []string{"node-1", "node-1"}},
		{Nodes: []string{"Node_1"}},
		{Nodes: []string{"node-1"}, Sidecar: SidecarOptions{Replicas: 2}},
		{Nodes: []string{"node-1"}, Sidecar: SidecarOptions{LeaderElection: &LeaderElectionOptions{}}},
		{Nodes: []string{"node-1"}, Snapshots: SnapshotOptions{Enabled: true}},
	} {
		if s, err := StartStack(ctx, opts); err == nil {
			s.Stop()
			t.Errorf("StartStack(%+v): no error", opts)
		}
	}
}

// SidecarOptions.Workload gives the sidecar a Pod owned like a Pod of that
// workload, and POD_NAME and NAMESPACE naming it; the owner chains of
// CreateWorkload are what the kinds' controllers would have made. No
// controller of kube-controller-manager deletes the Pods made by hand.
func TestWorkloads(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	s, err := StartStack(ctx, StackOptions{Sidecar: SidecarOptions{Deferred: true}})
	if err != nil {
		t.Fatalf("StartStack: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	p, err := s.StartSidecar(ctx, SidecarOptions{Workload: WorkloadDeployment})
	if err != nil {
		t.Fatal(err)
	}
	// The kernel fills in /proc/<pid>/environ only at the end of execve,
	// which Start does not wait for.
	var vars []string
	envCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = waitUntil(envCtx, "the sidecar's environment", p, func(context.Context) (bool, error) {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/environ")
		vars = strings.Split(string(env), "\x00")
		return len(env) > 0, err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"POD_NAME=" + p.Name(), "NAMESPACE=" + s.Namespace()} {
		if !slices.Contains(vars, want) {
			t.Errorf("the sidecar's environment lacks %s: %q", want, vars)
		}
	}
	w := s.Workload(WorkloadDeployment)
	if w == nil || w.Top == nil || w.Top.Kind != "Deployment" || w.PodController == nil || w.PodController.Kind != "ReplicaSet" {
		t.Fatalf("workload %+v", w)
	}
	pod, err := s.Client().CoreV1().Pods(s.Namespace()).Get(ctx, p.Name(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := metav1.GetControllerOf(pod); c == nil || c.UID != w.PodController.UID {
		t.Errorf("Pod %s is controlled by %+v, want the ReplicaSet %s", pod.Name, c, w.PodController.Name)
	}
	rs, err := s.Client().AppsV1().ReplicaSets(s.Namespace()).Get(ctx, w.PodController.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := metav1.GetControllerOf(rs); c == nil || c.UID != w.Top.UID {
		t.Errorf("ReplicaSet %s is controlled by %+v, want the Deployment", rs.Name, c)
	}

	for _, kind := range []WorkloadKind{WorkloadDaemonSet, WorkloadStatefulSet, WorkloadPod} {
		w, err := CreateWorkload(ctx, s.Client(), s.Namespace(), kind, "w-"+strings.ToLower(string(kind)))
		if err != nil {
			t.Fatal(err)
		}
		pod, err := w.CreatePod(ctx, s.Client(), w.Name+"-0", "node-1")
		if err != nil {
			t.Fatal(err)
		}
		c := metav1.GetControllerOf(pod)
		switch {
		case kind == WorkloadPod && c != nil:
			t.Errorf("bare Pod has controller %+v", c)
		case kind != WorkloadPod && (c == nil || c.Kind != string(kind) || c.UID != w.Top.UID):
			t.Errorf("Pod of %s is controlled by %+v", kind, c)
		}
		if pod.Spec.NodeName != "node-1" {
			t.Errorf("Pod of %s is on node %q", kind, pod.Spec.NodeName)
		}
		again, err := w.CreatePod(ctx, s.Client(), pod.Name, "node-1")
		if err != nil || again.UID != pod.UID {
			t.Errorf("CreatePod of an existing Pod: %v, UID %s, want %s", err, again.UID, pod.UID)
		}
	}
	if _, err := CreateWorkload(ctx, s.Client(), s.Namespace(), "CronJob", "x"); err == nil {
		t.Error("CreateWorkload of an unknown kind: no error")
	}
}
