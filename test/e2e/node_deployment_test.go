//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const (
	// nodeDeploymentImmediateClaims is how many Immediate claims the three
	// node sidecars compete for in TestNodeDeploymentTakesEachImmediateClaimOnce.
	nodeDeploymentImmediateClaims = 30
	// nodeDeploymentSlowCreate holds every CreateVolume in the drivers of
	// the crash test, long enough to kill a sidecar during one.
	nodeDeploymentSlowCreate = 3 * time.Second
	// nodeDeploymentScaleEnv turns on TestNodeDeploymentScaleFigures,
	// which takes minutes; nodeDeploymentScaleClaimsEnv changes its number
	// of claims (default nodeDeploymentScaleClaims).
	nodeDeploymentScaleEnv       = "E2E_NODE_DEPLOYMENT_SCALE"
	nodeDeploymentScaleClaimsEnv = "E2E_NODE_DEPLOYMENT_SCALE_CLAIMS"
	nodeDeploymentScaleClaims    = 300
)

// nodeDeploymentDelays are the node sidecars' back-off before they try to
// take an Immediate claim: far below upstream's 20s default, so a test sees
// the competition in seconds.
var nodeDeploymentDelays = []string{"--node-deployment-base-delay=100ms", "--node-deployment-max-delay=1s"}

// nodeSetup is how a node deployment test runs the stack.
type nodeSetup struct {
	// args are more sidecar flags, after nodeDeploymentDelays.
	args []string
	// driver changes the options of every node's driver.
	driver func(*framework.DriverOptions)
	// rbacExtra are installed with the shipped RBAC.
	rbacExtra []string
	// workload gives the sidecars Pods of one workload (a DaemonSet).
	workload framework.WorkloadKind
}

// startNodeStack starts three nodes (Node and CSINode objects), each with
// its own driver (topology on, requests logged) and its own sidecar with
// --node-deployment.
func startNodeStack(t *testing.T, setup nodeSetup) (context.Context, *framework.Stack) {
	t.Helper()
	driver := framework.DriverOptions{Verbosity: framework.DriverRequestVerbosity}
	if setup.driver != nil {
		setup.driver(&driver)
	}
	return startStack(t, framework.StackOptions{
		Nodes:  framework.NodeNames(3),
		Driver: driver,
		Sidecar: framework.SidecarOptions{
			ExtraArgs:          append(slices.Clone(nodeDeploymentDelays), setup.args...),
			ExtraRBACManifests: setup.rbacExtra,
			Workload:           setup.workload,
		},
	})
}

// waitForClaimsBound waits until every named claim is Bound and returns
// them by name.
func waitForClaimsBound(ctx context.Context, t *testing.T, s *framework.Stack, namespace string, names []string, timeout time.Duration) map[string]corev1.PersistentVolumeClaim {
	t.Helper()
	bound := map[string]corev1.PersistentVolumeClaim{}
	err := s.WaitFor(ctx, timeout, fmt.Sprintf("%d claims to be Bound", len(names)), func(ctx context.Context) (bool, error) {
		list, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		byName := map[string]corev1.PersistentVolumeClaim{}
		for _, pvc := range list.Items {
			byName[pvc.Name] = pvc
		}
		var pending []string
		for _, name := range names {
			pvc, ok := byName[name]
			if !ok || pvc.Status.Phase != corev1.ClaimBound {
				pending = append(pending, name)
				continue
			}
			bound[name] = pvc
		}
		if n := len(pending); n > 0 {
			if n > 5 {
				pending = append(pending[:5], "...")
			}
			return false, fmt.Errorf("%d not Bound: %v", n, pending)
		}
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bound
}

// volumePlacement returns, per volume name, the nodes whose driver holds a
// volume of that name.
func volumePlacement(t *testing.T, s *framework.Stack) map[string][]string {
	t.Helper()
	placed := map[string][]string{}
	for _, node := range s.Nodes() {
		st, err := s.NodeDriverState(node)
		if err != nil {
			t.Fatalf("read the state of %s's driver: %v", node, err)
		}
		for _, v := range st.Volumes {
			placed[v.Name] = append(placed[v.Name], node)
		}
	}
	return placed
}

// nodeDriverCalls reads a node's driver log, failing the test if it
// cannot.
func nodeDriverCalls(t *testing.T, s *framework.Stack, node string) *framework.DriverCalls {
	t.Helper()
	c, err := s.NodeDriverCalls(node)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A claim whose pod the scheduler put on a node (selected-node) is
// provisioned by that node's sidecar, through that node's driver, and by
// no other: the PV is pinned to that node and only that node's driver
// ever received a CreateVolume for it.
func TestNodeDeploymentProvisionsAClaimOnlyOnItsSelectedNode(t *testing.T) {
	ctx, s := startNodeStack(t, nodeSetup{})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	volumeOf := map[string]string{} // node -> volume name
	for _, node := range s.Nodes() {
		pvc := createClaim(ctx, t, s, "default", "on-"+node, classWFFC, claimOnNode(node))
		volumeOf[node] = "pvc-" + string(pvc.UID)
	}
	for _, node := range s.Nodes() {
		_, pv := waitForClaimBound(ctx, t, s, "default", "on-"+node)
		if got := nodeAffinityValues(pv); !slices.Equal(got, []string{node}) {
			t.Errorf("PV %s of the claim on %s is pinned to %v, want [%s]", pv.Name, node, got, node)
		}
	}
	placed := volumePlacement(t, s)
	for _, node := range s.Nodes() {
		if got := placed[volumeOf[node]]; !slices.Equal(got, []string{node}) {
			t.Errorf("the volume of the claim on %s is held by the drivers of %v, want [%s]", node, got, node)
		}
		calls := nodeDriverCalls(t, s, node)
		for volume, n := range calls.CreateRequests {
			if volume != volumeOf[node] || n != 1 {
				t.Errorf("%s's driver received %d CreateVolume for %s; want one, for its own claim's %s only", node, n, volume, volumeOf[node])
			}
		}
	}
}

// Immediate claims have no node; each node's sidecar tries to take them
// after a random delay by setting selected-node to its own node, and only
// the one that wrote it first provisions. Every claim is Bound, with
// exactly one CreateVolume among all drivers, made by the driver of the
// node the claim ended up selecting, which the PV is pinned to.
func TestNodeDeploymentTakesEachImmediateClaimOnce(t *testing.T) {
	ctx, s := startNodeStack(t, nodeSetup{})
	createStorageClass(ctx, t, s, classImmediate)
	var names []string
	for i := range nodeDeploymentImmediateClaims {
		name := fmt.Sprintf("immediate-%02d", i)
		createClaim(ctx, t, s, "default", name, classImmediate)
		names = append(names, name)
	}
	claims := waitForClaimsBound(ctx, t, s, "default", names, waitTimeout+time.Duration(len(names))*time.Second)

	total, err := s.AllNodeDriverCalls()
	if err != nil {
		t.Fatal(err)
	}
	placed := volumePlacement(t, s)
	pvs := map[string]corev1.PersistentVolume{}
	for _, pv := range listPVs(ctx, t, s) {
		pvs[pv.Name] = pv
	}
	perNode := map[string]int{}
	for _, name := range names {
		pvc := claims[name]
		volume := "pvc-" + string(pvc.UID)
		node := pvc.Annotations[annSelectedNode]
		perNode[node]++
		if n := total.CreateRequests[volume]; n != 1 {
			t.Errorf("claim %s: %d CreateVolume calls among the drivers, want 1", name, n)
		}
		if got := placed[volume]; !slices.Equal(got, []string{node}) {
			t.Errorf("claim %s selects node %q, its volume is held by the drivers of %v", name, node, got)
		}
		pv, ok := pvs[pvc.Spec.VolumeName]
		if !ok {
			t.Errorf("claim %s: no PV %s", name, pvc.Spec.VolumeName)
			continue
		}
		if got := nodeAffinityValues(&pv); !slices.Equal(got, []string{node}) {
			t.Errorf("claim %s selects node %q, its PV is pinned to %v", name, node, got)
		}
	}
	if n := total.Requests["CreateVolume"]; n != len(names) {
		t.Errorf("%d CreateVolume calls among the drivers for %d claims, want one each", n, len(names))
	}
	t.Logf("%d Immediate claims, %d CreateVolume calls; taken per node: %v", len(names), total.Requests["CreateVolume"], perNode)
}

// With --node-deployment-immediate-binding=false no node's sidecar takes an
// Immediate claim: they stay Pending, with no node selected and no
// CreateVolume. Claims with a selected node, created after them, are
// provisioned, which shows the sidecars were working all along.
func TestNodeDeploymentWithoutImmediateBindingLeavesImmediateClaimsPending(t *testing.T) {
	ctx, s := startNodeStack(t, nodeSetup{args: []string{"--node-deployment-immediate-binding=false"}})
	createStorageClass(ctx, t, s, classImmediate)
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	var immediate, selected []string
	for i := range 3 {
		name := fmt.Sprintf("immediate-%d", i)
		createClaim(ctx, t, s, "default", name, classImmediate)
		immediate = append(immediate, name)
	}
	for _, node := range s.Nodes() {
		createClaim(ctx, t, s, "default", "on-"+node, classWFFC, claimOnNode(node))
		selected = append(selected, "on-"+node)
	}
	waitForClaimsBound(ctx, t, s, "default", selected, waitTimeout)

	for _, name := range immediate {
		pvc := getClaim(ctx, t, s, "default", name)
		if pvc.Status.Phase != corev1.ClaimPending {
			t.Errorf("Immediate claim %s is %s, want Pending", name, pvc.Status.Phase)
		}
		if node, ok := pvc.Annotations[annSelectedNode]; ok {
			t.Errorf("Immediate claim %s was taken by node %q", name, node)
		}
	}
	total, err := s.AllNodeDriverCalls()
	if err != nil {
		t.Fatal(err)
	}
	if n := total.Requests["CreateVolume"]; n != len(selected) {
		t.Errorf("%d CreateVolume calls among the drivers, want %d (the claims with a selected node only)", n, len(selected))
	}
}

// A node's sidecar is killed (SIGKILL) while its driver is inside a slow
// CreateVolume, and the claim is deleted while the sidecar is down; the
// backend finishes the volume anyway. Once that sidecar is back, nothing
// is left: the claim is gone, no PV exists for it, its node's driver holds
// no volume for it (it was made once and deleted once). The other nodes'
// sidecars never touched it: their drivers received no CreateVolume and no
// DeleteVolume at all.
func TestNodeDeploymentSidecarKilledDuringCreateVolumeLeaksNothing(t *testing.T) {
	ctx, s := startNodeStack(t, nodeSetup{driver: func(o *framework.DriverOptions) {
		o.CreateDelay = nodeDeploymentSlowCreate
		o.CreateOutlivesCaller = true
	}})
	const node = "node-2"
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	pvc := createClaim(ctx, t, s, "default", "slow", classWFFC, claimOnNode(node))
	volume := "pvc-" + string(pvc.UID)

	waitFor(ctx, t, s, node+"'s driver to receive CreateVolume for "+volume, func(context.Context) (bool, error) {
		c, err := s.NodeDriverCalls(node)
		if err != nil {
			return false, err
		}
		return c.CreateRequests[volume] > 0, fmt.Errorf("requests for %v", slices.Collect(maps.Keys(c.CreateRequests)))
	})
	if err := s.KillNodeSidecar(node); err != nil {
		t.Fatal(err)
	}
	deleteClaim(ctx, t, s, "default", "slow")
	// The backend carries out the call of the dead sidecar.
	waitFor(ctx, t, s, node+"'s backend to finish "+volume, func(context.Context) (bool, error) {
		c, err := s.NodeDriverCalls(node)
		if err != nil {
			return false, err
		}
		return c.Created[volume] > 0, fmt.Errorf("not created yet")
	})
	if err := s.RestartNodeSidecar(ctx, node); err != nil {
		t.Fatal(err)
	}

	waitForClaimGone(ctx, t, s, "default", "slow")
	waitFor(ctx, t, s, "no driver to hold "+volume, func(context.Context) (bool, error) {
		placed := volumePlacement(t, s)
		return len(placed[volume]) == 0, fmt.Errorf("held by the drivers of %v", placed[volume])
	})
	if pv, err := s.Client().CoreV1().PersistentVolumes().Get(ctx, volume, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("PV %s of the deleted claim: %v, %v; want none", volume, pv.Status.Phase, err)
	}
	for _, pv := range listPVs(ctx, t, s) {
		if ref := pv.Spec.ClaimRef; ref != nil && ref.UID == pvc.UID {
			t.Errorf("PV %s is left for the deleted claim", pv.Name)
		}
	}
	calls := nodeDriverCalls(t, s, node)
	if calls.Created[volume] != 1 || calls.Deleted[volume] != 1 {
		t.Errorf("%s's backend made %s %d time(s) and deleted it %d time(s), want once each", node, volume, calls.Created[volume], calls.Deleted[volume])
	}
	for _, other := range s.Nodes() {
		if other == node {
			continue
		}
		c := nodeDriverCalls(t, s, other)
		if c.Requests["CreateVolume"] != 0 || c.Requests["DeleteVolume"] != 0 {
			t.Errorf("%s's driver received %d CreateVolume and %d DeleteVolume; the claim was %s's", other, c.Requests["CreateVolume"], c.Requests["DeleteVolume"], node)
		}
	}
}

// With capacity tracking on, each node's sidecar publishes the capacity of
// its own node only: one object per WaitForFirstConsumer class for its
// driver's segment, labelled managed-by=external-provisioner-<node>, owned
// by the DaemonSet of the sidecars' Pods (--capacity-ownerref-level=1). A
// volume on one node changes that node's object alone.
func TestNodeDeploymentPublishesEachNodesCapacityFromThatNode(t *testing.T) {
	ctx, s := startNodeStack(t, nodeSetup{
		args:      []string{"--enable-capacity", "--capacity-poll-interval=" + pollForever},
		rbacExtra: []string{framework.CapacityRBACManifest},
		workload:  framework.WorkloadDaemonSet,
		driver: func(o *framework.DriverOptions) {
			o.Capacity = segmentCapacity
			o.MaxVolumeSize = capacityMaxVolumeSize
		},
	})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	createStorageClass(ctx, t, s, classImmediate)
	want := everywhere([]string{classWFFC}, s.Nodes(), freeSpace(segmentCapacity))
	objs := waitForCapacityObjects(ctx, t, s, framework.CapacityManagedByNode, want)
	requireOwner(t, objs, s.Workload(framework.WorkloadDaemonSet).Top)

	createClaim(ctx, t, s, "default", "data", classWFFC, claimOnNode("node-1"))
	waitForClaimBound(ctx, t, s, "default", "data")
	want[framework.CapacityKey{Class: classWFFC, Segment: "node-1"}] = freeSpace(segmentCapacity - claimBytes)
	requireSameObjects(t, capacityUIDs(objs), waitForCapacityObjects(ctx, t, s, framework.CapacityManagedByNode, want))
}

// scaleRun is what one setup of TestNodeDeploymentScaleFigures measured.
type scaleRun struct {
	setup        string
	claims       int
	createVolume int
	untilBound   time.Duration
	apiRequests  int
	// apiByRequest counts the sidecars' API requests by verb and
	// resource, and response code if it is an error.
	apiByRequest   map[string]int
	perNode        map[string]int
	createDuration time.Duration
}

// Figures, not a pass/fail check of speed: N Immediate claims (300 by
// default) provisioned by three node sidecars (each with its own driver,
// --node-deployment-base-delay=100ms, --node-deployment-max-delay=1s) and
// by one central sidecar (one driver with topology, the same three
// nodes). Logged: CreateVolume calls per claim, the time from the first
// claim created until all are Bound, the sidecars' API requests (all of
// them, start-up included) per claim, and how the volumes were spread
// over the nodes (by the node each PV is pinned to). The sidecars run with
// the default --kube-api-qps and --kube-api-burst, each. Both setups must
// still provision each claim with exactly one CreateVolume.
//
// It takes minutes, so it runs only with E2E_NODE_DEPLOYMENT_SCALE=1
// (E2E_NODE_DEPLOYMENT_SCALE_CLAIMS=N changes the number of claims) and a
// go test -timeout beyond the Makefile's 20m if N is large:
//
//	E2E_NODE_DEPLOYMENT_SCALE=1 go test -tags e2e -count=1 -timeout 60m -run TestNodeDeploymentScaleFigures -v ./test/e2e/
func TestNodeDeploymentScaleFigures(t *testing.T) {
	if os.Getenv(nodeDeploymentScaleEnv) == "" {
		t.Skipf("set %s=1 to measure %d Immediate claims with node sidecars and with a central one (minutes)", nodeDeploymentScaleEnv, nodeDeploymentScaleClaims)
	}
	claims := nodeDeploymentScaleClaims
	if v := os.Getenv(nodeDeploymentScaleClaimsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("%s=%q: want a positive number", nodeDeploymentScaleClaimsEnv, v)
		}
		claims = n
	}
	var runs []scaleRun
	t.Run("node_deployment", func(t *testing.T) {
		ctx, s := startNodeStack(t, nodeSetup{})
		runs = append(runs, measureImmediateClaims(ctx, t, s, "3 node sidecars", claims, s.AllNodeDriverCalls))
	})
	t.Run("central", func(t *testing.T) {
		ctx, s := startStack(t, framework.StackOptions{
			Driver: framework.DriverOptions{Topology: true, NodeID: "controller", Verbosity: framework.DriverRequestVerbosity},
		})
		if err := s.CreateNodes(ctx, framework.NodeNames(3)...); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, measureImmediateClaims(ctx, t, s, "1 central sidecar", claims, func() (*framework.DriverCalls, error) {
			return framework.ReadDriverCalls(s.Driver().LogFile())
		}))
	})
	for _, r := range runs {
		t.Logf("%-18s %d claims: %.2f CreateVolume per claim (%d), all Bound %s after the first claim (creating them took %s), %.1f sidecar API requests per claim; per node %v",
			r.setup+":", r.claims, float64(r.createVolume)/float64(r.claims), r.createVolume, r.untilBound.Round(100*time.Millisecond),
			r.createDuration.Round(100*time.Millisecond), float64(r.apiRequests)/float64(r.claims), r.perNode)
		t.Logf("%-18s sidecar API requests: %v", r.setup+":", r.apiByRequest)
	}
}

// measureImmediateClaims creates n Immediate claims, waits until all are
// Bound, and counts.
func measureImmediateClaims(ctx context.Context, t *testing.T, s *framework.Stack, setup string, n int, driverCalls func() (*framework.DriverCalls, error)) scaleRun {
	t.Helper()
	createStorageClass(ctx, t, s, classImmediate)
	run := scaleRun{setup: setup, claims: n, perNode: map[string]int{}, apiByRequest: map[string]int{}}
	var names []string
	start := time.Now()
	for i := range n {
		name := fmt.Sprintf("scale-%04d", i)
		createClaim(ctx, t, s, "default", name, classImmediate)
		names = append(names, name)
	}
	run.createDuration = time.Since(start)
	bound := waitForClaimsBound(ctx, t, s, "default", names, 5*time.Minute+time.Duration(n)*time.Second)
	run.untilBound = time.Since(start)

	calls, err := driverCalls()
	if err != nil {
		t.Fatal(err)
	}
	run.createVolume = calls.Requests["CreateVolume"]
	var twice []string
	for _, pvc := range bound {
		if c := calls.CreateRequests["pvc-"+string(pvc.UID)]; c != 1 {
			twice = append(twice, fmt.Sprintf("%s: %d", pvc.Name, c))
		}
	}
	// Where the volumes went, by the nodes their PVs are pinned to.
	for _, pv := range listPVs(ctx, t, s) {
		run.perNode[strings.Join(nodeAffinityValues(&pv), "+")]++
	}
	sort.Strings(twice)
	if len(twice) > 0 {
		t.Errorf("%s: claims without exactly one CreateVolume: %s", setup, strings.Join(twice, ", "))
	}
	events, err := sidecarAuditEvents(s)
	if err != nil {
		t.Fatal(err)
	}
	run.apiRequests = len(events)
	for _, ev := range events {
		what := ev.Verb
		if ev.ObjectRef != nil {
			what += " " + ev.ObjectRef.Resource
			if ev.ObjectRef.Subresource != "" {
				what += "/" + ev.ObjectRef.Subresource
			}
		}
		if ev.ResponseStatus != nil && ev.ResponseStatus.Code >= 400 {
			// Conflicts: the claims another node's sidecar took first.
			what += fmt.Sprintf(" (%d)", ev.ResponseStatus.Code)
		}
		run.apiByRequest[what]++
	}
	return run
}
