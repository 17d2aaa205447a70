//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const (
	// segmentCapacity is the driver's --capacity: what it has for
	// volumes in every topology segment.
	segmentCapacity int64 = 10 << 30
	// fastPoolCapacity is the driver's pool "fast", which a class selects
	// with parameters {pool: fast}.
	fastPoolCapacity int64 = 5 << 30
	// capacityMaxVolumeSize is the driver's --max-volume-size, below the
	// capacities, so that maximumVolumeSize is told apart from capacity.
	capacityMaxVolumeSize int64 = 4 << 30
	// claimBytes is what createClaim asks for.
	claimBytes int64 = 1 << 30
	// pollForever is a --capacity-poll-interval no test outlives: what
	// changes under it was not brought by the poll.
	pollForever = "1h"
	// capacityPollShort is a --capacity-poll-interval for the test of the poll
	// itself.
	capacityPollShort = 2 * time.Second
	// The classes the capacity tests create.
	classWFFC      = "mock-wffc"
	classImmediate = "mock-immediate"
	classFast      = "mock-fast"
)

// capacitySetup is how a capacity test runs the stack.
type capacitySetup struct {
	// poll is --capacity-poll-interval. Defaults to pollForever.
	poll string
	// args are more sidecar flags.
	args []string
	// workload owns the sidecar's Pod. Defaults to a StatefulSet, for
	// the default --capacity-ownerref-level=1.
	workload framework.WorkloadKind
	// driver changes the driver's options.
	driver func(*framework.DriverOptions)
	// rbac replaces the shipped RBAC, rbac.yaml with rbac-capacity.yaml,
	// with one manifest, e.g. upstream's.
	rbac string
}

// sidecarRBAC is the RBAC options of the setup's sidecar.
func (setup capacitySetup) sidecarRBAC() framework.SidecarOptions {
	if setup.rbac != "" {
		return framework.SidecarOptions{RBACManifest: setup.rbac}
	}
	return framework.SidecarOptions{ExtraRBACManifests: []string{framework.CapacityRBACManifest}}
}

// startCapacityStack starts a driver with topology, --capacity and
// --max-volume-size, registers three nodes, and then starts one central
// sidecar with --enable-capacity under the shipped RBAC and
// rbac-capacity.yaml (startStack's cleanup fails the test on any refused
// request), its Pod owned by the setup's workload. The nodes exist before the sidecar starts, so what it
// publishes first already covers them.
func startCapacityStack(t *testing.T, setup capacitySetup) (context.Context, *framework.Stack, []string) {
	t.Helper()
	driver := framework.DriverOptions{
		Topology:      true,
		NodeID:        "controller",
		Capacity:      segmentCapacity,
		MaxVolumeSize: capacityMaxVolumeSize,
	}
	if setup.driver != nil {
		setup.driver(&driver)
	}
	sidecar := setup.sidecarRBAC()
	sidecar.Deferred = true
	ctx, s := startStack(t, framework.StackOptions{Driver: driver, Sidecar: sidecar})
	nodes := framework.NodeNames(3)
	if err := s.CreateNodes(ctx, nodes...); err != nil {
		t.Fatal(err)
	}
	startCapacitySidecar(ctx, t, s, setup)
	return ctx, s, nodes
}

// startCapacitySidecar starts the central sidecar of a capacity test.
func startCapacitySidecar(ctx context.Context, t *testing.T, s *framework.Stack, setup capacitySetup) *framework.Process {
	t.Helper()
	if setup.poll == "" {
		setup.poll = pollForever
	}
	if setup.workload == "" {
		setup.workload = framework.WorkloadStatefulSet
	}
	opts := setup.sidecarRBAC()
	opts.Workload = setup.workload
	opts.ExtraArgs = append([]string{"--enable-capacity", "--capacity-poll-interval=" + setup.poll}, setup.args...)
	p, err := s.StartSidecar(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// capacityWant is what the object of a class and segment must say.
type capacityWant struct {
	capacity, maximumVolumeSize int64
}

// freeSpace is what the driver reports for a segment with available
// bytes: those, and volumes up to the maximum volume size.
func freeSpace(available int64) capacityWant {
	return capacityWant{capacity: available, maximumVolumeSize: min(available, capacityMaxVolumeSize)}
}

// capacityTable is the wanted objects: per class, per segment.
type capacityTable map[framework.CapacityKey]capacityWant

// everywhere wants, for each class, an object per segment with the same
// free space.
func everywhere(classes, segments []string, free capacityWant) capacityTable {
	want := capacityTable{}
	for _, class := range classes {
		for _, segment := range segments {
			want[framework.CapacityKey{Class: class, Segment: segment}] = free
		}
	}
	return want
}

func (w capacityTable) String() string {
	keys := slices.SortedFunc(maps.Keys(w), func(a, b framework.CapacityKey) int { return strings.Compare(a.String(), b.String()) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d/%d", k, w[k].capacity, w[k].maximumVolumeSize)
	}
	return strings.Join(parts, ", ")
}

// managedBy says which sidecar manages the object of a segment.
type managedBy func(segment string) string

func centralSidecar(string) string { return framework.CapacityManagedByCentral }

// waitForCapacityObjects waits until the CSIStorageCapacity objects in the
// stack's namespace are exactly the wanted ones: one per class and
// segment of the table and no other, each with nodeTopology matchLabels
// {topology key: segment}, the capacity and maximum volume size wanted,
// and the driver and managed-by labels. It returns them by class and
// segment.
func waitForCapacityObjects(ctx context.Context, t *testing.T, s *framework.Stack, manager managedBy, want capacityTable) map[framework.CapacityKey]storagev1.CSIStorageCapacity {
	t.Helper()
	var index map[framework.CapacityKey]storagev1.CSIStorageCapacity
	// Every object in the namespace, labelled right or not: one with
	// wrong labels is a failure, not something to overlook.
	_, err := s.WaitForCapacities(ctx, waitTimeout, "the CSIStorageCapacity objects "+want.String(), nil, func(list []storagev1.CSIStorageCapacity) error {
		got, err := framework.IndexCapacities(list, mockdriver.TopologyKey)
		if err != nil {
			return err
		}
		var problems []string
		for k, c := range got {
			w, ok := want[k]
			if !ok {
				problems = append(problems, fmt.Sprintf("unwanted %s (%s)", k, c.Name))
				continue
			}
			if c.Capacity == nil || c.Capacity.Value() != w.capacity {
				problems = append(problems, fmt.Sprintf("%s capacity %v, want %d", k, c.Capacity, w.capacity))
			}
			if c.MaximumVolumeSize == nil || c.MaximumVolumeSize.Value() != w.maximumVolumeSize {
				problems = append(problems, fmt.Sprintf("%s maximumVolumeSize %v, want %d", k, c.MaximumVolumeSize, w.maximumVolumeSize))
			}
			wantLabels := map[string]string{
				framework.CapacityDriverLabel:    s.DriverName(),
				framework.CapacityManagedByLabel: manager(k.Segment),
			}
			for key, value := range wantLabels {
				if c.Labels[key] != value {
					problems = append(problems, fmt.Sprintf("%s label %s=%q, want %q", k, key, c.Labels[key], value))
				}
			}
		}
		for k := range want {
			if _, ok := got[k]; !ok {
				problems = append(problems, "missing "+k.String())
			}
		}
		if len(problems) > 0 {
			sort.Strings(problems)
			return fmt.Errorf("%s", strings.Join(problems, "; "))
		}
		index = got
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return index
}

// capacityUIDs returns the UIDs of the objects by class and segment.
func capacityUIDs(objs map[framework.CapacityKey]storagev1.CSIStorageCapacity) map[framework.CapacityKey]types.UID {
	uids := map[framework.CapacityKey]types.UID{}
	for k, c := range objs {
		uids[k] = c.UID
	}
	return uids
}

// requireSameObjects fails the test if an object of before was replaced
// (another UID) in after, or is missing from it.
func requireSameObjects(t *testing.T, before map[framework.CapacityKey]types.UID, after map[framework.CapacityKey]storagev1.CSIStorageCapacity) {
	t.Helper()
	for k, uid := range before {
		c, ok := after[k]
		switch {
		case !ok:
			t.Errorf("the object for %s (UID %s) is gone", k, uid)
		case c.UID != uid:
			t.Errorf("the object for %s was replaced: UID %s, was %s", k, c.UID, uid)
		}
	}
}

// A central sidecar with --enable-capacity publishes one CSIStorageCapacity
// per topology segment (from the nodes' CSINodes and labels) and per
// WaitForFirstConsumer class of its driver, and none for an Immediate
// class: the scheduler only consults capacity for claims it places. Each
// says what the driver's GetCapacity says for that segment, and carries
// the driver and managed-by labels.
func TestCapacityOnePerSegmentAndWaitForFirstConsumerClass(t *testing.T) {
	ctx, s, nodes := startCapacityStack(t, capacitySetup{})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	createStorageClass(ctx, t, s, classImmediate)
	// A class of another driver gets nothing either.
	createStorageClass(ctx, t, s, "other-driver", waitForFirstConsumer, func(sc *storagev1.StorageClass) { sc.Provisioner = "other.example.com" })

	objs := waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC}, nodes, freeSpace(segmentCapacity)))
	for k, c := range objs {
		if c.Namespace != s.Namespace() {
			t.Errorf("the object for %s is in namespace %s, want the sidecar's %s", k, c.Namespace, s.Namespace())
		}
	}
}

// Creating a volume lowers the capacity of the segment it was made in, and
// deleting it raises it again, each time without waiting for the poll
// (which is an hour here): the sidecar refreshes the segment right after
// its CreateVolume and DeleteVolume. The other segments keep theirs.
func TestCapacityFollowsVolumesWithoutWaitingForThePoll(t *testing.T) {
	ctx, s, nodes := startCapacityStack(t, capacitySetup{poll: pollForever})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	all := everywhere([]string{classWFFC}, nodes, freeSpace(segmentCapacity))
	before := capacityUIDs(waitForCapacityObjects(ctx, t, s, centralSidecar, all))

	createClaim(ctx, t, s, "default", "data", classWFFC)
	selectNode(ctx, t, s, "default", "data", "node-2")
	_, pv := waitForClaimBound(ctx, t, s, "default", "data")
	lowered := maps.Clone(all)
	lowered[framework.CapacityKey{Class: classWFFC, Segment: "node-2"}] = freeSpace(segmentCapacity - claimBytes)
	requireSameObjects(t, before, waitForCapacityObjects(ctx, t, s, centralSidecar, lowered))

	deleteClaim(ctx, t, s, "default", "data")
	waitForPVGone(ctx, t, s, pv.Name)
	requireSameObjects(t, before, waitForCapacityObjects(ctx, t, s, centralSidecar, all))
}

// Capacity taken by someone else than the sidecar (another CO, an admin on
// the backend) shows within the poll interval.
func TestCapacityPollSeesChangesTheSidecarDidNotMake(t *testing.T) {
	ctx, s, nodes := startCapacityStack(t, capacitySetup{poll: capacityPollShort.String()})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	all := everywhere([]string{classWFFC}, nodes, freeSpace(segmentCapacity))
	waitForCapacityObjects(ctx, t, s, centralSidecar, all)

	createVolumeBehindTheSidecar(ctx, t, s.Socket(), "made-elsewhere", "node-3", 3<<30)
	lowered := maps.Clone(all)
	lowered[framework.CapacityKey{Class: classWFFC, Segment: "node-3"}] = freeSpace(segmentCapacity - 3<<30)
	start := time.Now()
	waitForCapacityObjects(ctx, t, s, centralSidecar, lowered)
	t.Logf("the poll (every %s) showed the change after %s", capacityPollShort, time.Since(start).Round(100*time.Millisecond))
}

// createVolumeBehindTheSidecar asks the driver directly for a volume, in a
// node's segment unless node is "".
func createVolumeBehindTheSidecar(ctx context.Context, t *testing.T, socket, name, node string, bytes int64) *csi.Volume {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req := framework.NewVolumeRequest(name, bytes)
	if node != "" {
		req.AccessibilityRequirements = &csi.TopologyRequirement{
			Requisite: []*csi.Topology{{Segments: map[string]string{mockdriver.TopologyKey: node}}},
		}
	}
	vol, err := framework.CreateDriverVolume(ctx, socket, req)
	if err != nil {
		t.Fatalf("CreateVolume %s on %q directly: %v", name, node, err)
	}
	return vol
}

// A class naming one of the driver's pools (parameters {pool: fast}) gets
// that pool's capacity, per segment; a volume of that class lowers only
// that pool's, the default pool of the other class keeps its own.
func TestCapacityPerPoolOfTheClassParameters(t *testing.T) {
	ctx, s, nodes := startCapacityStack(t, capacitySetup{driver: func(o *framework.DriverOptions) {
		o.Pools = map[string]int64{"fast": fastPoolCapacity}
	}})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	createStorageClass(ctx, t, s, classFast, waitForFirstConsumer, withParameters(map[string]string{framework.PoolParameter: "fast"}))
	want := everywhere([]string{classWFFC}, nodes, freeSpace(segmentCapacity))
	maps.Copy(want, everywhere([]string{classFast}, nodes, freeSpace(fastPoolCapacity)))
	waitForCapacityObjects(ctx, t, s, centralSidecar, want)

	createClaim(ctx, t, s, "default", "fast-data", classFast)
	selectNode(ctx, t, s, "default", "fast-data", "node-1")
	waitForClaimBound(ctx, t, s, "default", "fast-data")
	want[framework.CapacityKey{Class: classFast, Segment: "node-1"}] = freeSpace(fastPoolCapacity - claimBytes)
	waitForCapacityObjects(ctx, t, s, centralSidecar, want)
}

// A sidecar that restarts, after a clean stop or a crash, takes over the
// objects it published before: the same objects (names and UIDs), updated
// to what the driver says now, and no second set. The driver is given a
// new capacity while the sidecar is down, so the update shows that the
// new sidecar has made its first pass.
func TestCapacityObjectsSurviveSidecarRestarts(t *testing.T) {
	ctx, s, nodes := startCapacityStack(t, capacitySetup{})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	objs := waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC}, nodes, freeSpace(segmentCapacity)))
	uids := capacityUIDs(objs)
	names := map[framework.CapacityKey]string{}
	for k, c := range objs {
		names[k] = c.Name
	}

	for i, stop := range []struct {
		how  string
		stop func(*framework.Process) error
	}{
		{"SIGTERM", (*framework.Process).Stop},
		{"SIGKILL", (*framework.Process).Kill},
	} {
		capacity := segmentCapacity + int64(i+1)*(10<<30)
		if err := stop.stop(s.Sidecar()); err != nil {
			t.Fatal(err)
		}
		opts := s.DriverOptions()
		opts.Capacity = capacity
		if err := s.ReplaceDriver(ctx, opts); err != nil {
			t.Fatal(err)
		}
		if err := s.Sidecar().Restart(ctx); err != nil {
			t.Fatal(err)
		}
		after := waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC}, nodes, freeSpace(capacity)))
		requireSameObjects(t, uids, after)
		for k, c := range after {
			if c.Name != names[k] {
				t.Errorf("after %s: the object for %s is %s, was %s", stop.how, k, c.Name, names[k])
			}
		}
	}
}

// With --capacity-for-immediate-binding, Immediate classes get objects
// too.
func TestCapacityForImmediateBindingCoversImmediateClasses(t *testing.T) {
	ctx, s, nodes := startCapacityStack(t, capacitySetup{args: []string{"--capacity-for-immediate-binding"}})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	createStorageClass(ctx, t, s, classImmediate)
	waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC, classImmediate}, nodes, freeSpace(segmentCapacity)))
}

// Deleting a class deletes its objects, and only its.
func TestCapacityObjectsOfADeletedClassAreDeleted(t *testing.T) {
	ctx, s, nodes := startCapacityStack(t, capacitySetup{})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	createStorageClass(ctx, t, s, "mock-wffc-2", waitForFirstConsumer)
	objs := waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC, "mock-wffc-2"}, nodes, freeSpace(segmentCapacity)))

	if err := s.Client().StorageV1().StorageClasses().Delete(ctx, "mock-wffc-2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	after := waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC}, nodes, freeSpace(segmentCapacity)))
	// What is left was there before, not made again.
	requireSameObjects(t, capacityUIDs(after), objs)
}

// The segments follow the nodes: a node whose CSINode goes (the driver's
// node plugin was removed), or whose Node goes, loses its objects; a new
// node gets them. The objects of the other nodes stay as they are.
func TestCapacityObjectsFollowTheNodes(t *testing.T) {
	ctx, s, nodes := startCapacityStack(t, capacitySetup{})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	objs := waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC}, nodes, freeSpace(segmentCapacity)))
	uids := capacityUIDs(objs)

	if err := s.Cluster().DeleteCSINode(ctx, "node-3"); err != nil {
		t.Fatal(err)
	}
	after := waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC}, []string{"node-1", "node-2"}, freeSpace(segmentCapacity)))
	// What is left was there before, not made again.
	requireSameObjects(t, capacityUIDs(after), objs)

	if err := s.Cluster().DeleteNodeObject(ctx, "node-2"); err != nil {
		t.Fatal(err)
	}
	after = waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC}, []string{"node-1"}, freeSpace(segmentCapacity)))
	requireSameObjects(t, capacityUIDs(after), objs)

	if err := s.CreateNodes(ctx, "node-4"); err != nil {
		t.Fatal(err)
	}
	after = waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC}, []string{"node-1", "node-4"}, freeSpace(segmentCapacity)))
	if after[framework.CapacityKey{Class: classWFFC, Segment: "node-1"}].UID != uids[framework.CapacityKey{Class: classWFFC, Segment: "node-1"}] {
		t.Errorf("the object of node-1 was replaced when node-4 came")
	}
}

// --capacity-ownerref-level picks the owner of the objects by walking up
// the controllers from the sidecar's Pod (POD_NAME and NAMESPACE): 0 is the
// Pod, 1 its DaemonSet or StatefulSet, 2 the Deployment of its ReplicaSet,
// and -1 leaves the objects without owner. The owner reference is a
// controller reference, so that deleting the workload lets the garbage
// collector remove them.
func TestCapacityOwnerFollowsTheOwnerRefLevel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		workload framework.WorkloadKind
		level    int
		// owner is the wanted owner reference, nil for none.
		owner func(ctx context.Context, t *testing.T, s *framework.Stack) *metav1.OwnerReference
	}{
		{"level 1 is the DaemonSet", framework.WorkloadDaemonSet, 1, topOfWorkload(framework.WorkloadDaemonSet)},
		{"level 1 is the StatefulSet", framework.WorkloadStatefulSet, 1, topOfWorkload(framework.WorkloadStatefulSet)},
		{"level 2 is the Deployment of the ReplicaSet", framework.WorkloadDeployment, 2, topOfWorkload(framework.WorkloadDeployment)},
		{"level 0 is the Pod", framework.WorkloadDaemonSet, 0, sidecarPodRef},
		{"level -1 is no owner", framework.WorkloadDaemonSet, -1, func(context.Context, *testing.T, *framework.Stack) *metav1.OwnerReference { return nil }},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			ctx, s, nodes := startCapacityStack(t, capacitySetup{
				workload: tc.workload,
				args:     []string{fmt.Sprintf("--capacity-ownerref-level=%d", tc.level)},
			})
			createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
			objs := waitForCapacityObjects(ctx, t, s, centralSidecar, everywhere([]string{classWFFC}, nodes, freeSpace(segmentCapacity)))
			requireOwner(t, objs, tc.owner(ctx, t, s))
		})
	}
}

// Capacity tracking asks for no more than upstream v6.3.0's RBAC grants
// (its namespaced Role has CSIStorageCapacities, get on Pods and on
// ReplicaSets): under exactly those rules, with the owner two levels up (a
// Deployment), every request of the sidecar is granted, while it publishes
// and refreshes after a volume.
func TestCapacityWorksUnderUpstreamRBAC(t *testing.T) {
	ctx, s, nodes := startCapacityStack(t, capacitySetup{
		rbac:     upstreamRBACv630,
		workload: framework.WorkloadDeployment,
		args:     []string{"--capacity-ownerref-level=2"},
	})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	all := everywhere([]string{classWFFC}, nodes, freeSpace(segmentCapacity))
	requireOwner(t, waitForCapacityObjects(ctx, t, s, centralSidecar, all), s.Workload(framework.WorkloadDeployment).Top)

	createClaim(ctx, t, s, "default", "data", classWFFC, claimOnNode("node-1"))
	waitForClaimBound(ctx, t, s, "default", "data")
	all[framework.CapacityKey{Class: classWFFC, Segment: "node-1"}] = freeSpace(segmentCapacity - claimBytes)
	waitForCapacityObjects(ctx, t, s, centralSidecar, all)
	requireWithinGrants(t, s)
}

// topOfWorkload wants the stack's workload of a kind as owner.
func topOfWorkload(kind framework.WorkloadKind) func(context.Context, *testing.T, *framework.Stack) *metav1.OwnerReference {
	return func(_ context.Context, t *testing.T, s *framework.Stack) *metav1.OwnerReference {
		t.Helper()
		w := s.Workload(kind)
		if w == nil || w.Top == nil {
			t.Fatalf("the stack has no %s", kind)
		}
		return w.Top
	}
}

// sidecarPodRef wants the sidecar's own Pod as owner.
func sidecarPodRef(ctx context.Context, t *testing.T, s *framework.Stack) *metav1.OwnerReference {
	t.Helper()
	pod, err := s.Client().CoreV1().Pods(s.Namespace()).Get(ctx, s.Sidecar().Name(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the sidecar's Pod: %v", err)
	}
	yes := true
	return &metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: &yes}
}

// requireOwner checks that every object has exactly the wanted controller
// reference as its one owner reference, or none if want is nil.
func requireOwner(t *testing.T, objs map[framework.CapacityKey]storagev1.CSIStorageCapacity, want *metav1.OwnerReference) {
	t.Helper()
	for k, c := range objs {
		refs := c.OwnerReferences
		if want == nil {
			if len(refs) != 0 {
				t.Errorf("the object for %s has owners %+v, want none", k, refs)
			}
			continue
		}
		if len(refs) != 1 {
			t.Errorf("the object for %s has owners %+v, want exactly %s %s", k, refs, want.Kind, want.Name)
			continue
		}
		got := refs[0]
		if got.APIVersion != want.APIVersion || got.Kind != want.Kind || got.Name != want.Name || got.UID != want.UID {
			t.Errorf("the object for %s is owned by %s %s %s (UID %s), want %s %s %s (UID %s)", k,
				got.APIVersion, got.Kind, got.Name, got.UID, want.APIVersion, want.Kind, want.Name, want.UID)
		}
		if got.Controller == nil || !*got.Controller {
			t.Errorf("the owner reference of the object for %s is not a controller reference: %+v", k, got)
		}
	}
}

// claimOnNode is a claim mutator that selects a node up front, as the
// scheduler would have done, for tests that do not watch the wait.
func claimOnNode(node string) func(*corev1.PersistentVolumeClaim) {
	return withAnnotation(annSelectedNode, node)
}
