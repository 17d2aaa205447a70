package capacity

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
)

const (
	testDriver    = "capacity.test.csi"
	testNamespace = "csi"
	topologyKey1  = "topology.test.csi/node"
)

// fakeCSI answers GetCapacity from a table keyed by segment and class
// parameter "pool"; unknown entries have 0 bytes.
type fakeCSI struct {
	mu    sync.Mutex
	bytes map[string]int64 // segment value + "/" + pool
	calls atomic.Int32
}

func (f *fakeCSI) set(node, pool string, bytes int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bytes[node+"/"+pool] = bytes
}

func (f *fakeCSI) GetCapacity(ctx context.Context, req *csi.GetCapacityRequest, _ ...grpc.CallOption) (*csi.GetCapacityResponse, error) {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.bytes[req.GetAccessibleTopology().GetSegments()[topologyKey1]+"/"+req.GetParameters()["pool"]]
	return &csi.GetCapacityResponse{AvailableCapacity: n, MaximumVolumeSize: wrapperspb.Int64(n / 2)}, nil
}

type fixture struct {
	*testutil.Env
	t       *testing.T
	csi     *fakeCSI
	ctrl    *Controller
	workers int
	// syncs and writes are the outcomes of every sync and update attempt.
	syncs, writes *testutil.Syncs[Key]
	// updates counts the updates that reached the API, by node.
	updates *updateCounter
	// stop ends Run and waits for it to return; start sets it.
	stop func()
}

type fixtureOptions struct {
	objects   []runtime.Object
	owner     *metav1.OwnerReference
	immediate bool
	topology  Topology // nil: nodes from the informers
	poll      time.Duration
	// workers is the number of workers and writers; 0 is 2.
	workers int
	// gate, if set, holds every update until it lets it through.
	gate    *updateGate
	largest func(class string) (int64, bool)
}

func newFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	env := testutil.NewEnv(t, testutil.EnvOptions{Objects: o.objects, Timeout: 10 * time.Second})
	topo := o.topology
	if topo == nil {
		nt, err := NewNodeTopology(NodeTopologyOptions{
			DriverName: testDriver, Nodes: env.Informers.Core().V1().Nodes(), CSINodes: env.Informers.Storage().V1().CSINodes(),
		})
		if err != nil {
			t.Fatal(err)
		}
		topo = nt
	}
	poll := o.poll
	if poll == 0 {
		poll = time.Hour
	}
	f := &fixture{
		Env: env, t: t, csi: &fakeCSI{bytes: map[string]int64{}}, workers: cmp.Or(o.workers, 2),
		syncs: &testutil.Syncs[Key]{}, writes: &testutil.Syncs[Key]{}, updates: countUpdates(env.Client),
	}
	var api kubernetes.Interface = env.Client
	if o.gate != nil {
		api = gatedClient{Clientset: env.Client, gate: o.gate}
	}
	ctrl, err := New(Options{
		DriverName: testDriver, ManagedBy: ManagedBy, Namespace: testNamespace, Owner: o.owner,
		Client: api, CSI: f.csi, Timeout: time.Second, PollInterval: poll, ImmediateBinding: o.immediate,
		Topology: topo, ClassInformer: env.Informers.Storage().V1().StorageClasses(),
		CapacityInformer: env.Informers.Storage().V1().CSIStorageCapacities(),
		// Quick retries, backed off all the same.
		WriteRateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[Key](time.Millisecond, 50*time.Millisecond),
		LargestRequest:   o.largest,
		Processed:        f.syncs.Processed,
		Written:          func(key Key, err error) { f.writes.Processed(key, reconcile.Done, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	f.ctrl = ctrl
	f.Registry.CustomMustRegister(ctrl)
	return f
}

// start starts the informers and the controller's workers.
func (f *fixture) start() {
	f.t.Helper()
	f.StartInformers(f.t)
	f.stop = testutil.Start(f.t, f.Ctx, func(ctx context.Context) error {
		f.ctrl.Run(ctx, f.workers)
		return nil
	})
}

// metric reads one of the controller's metrics.
func (f *fixture) metric(name string) float64 {
	return testutil.Metric(f.t, f.Registry, name)
}

// waitMetric waits until a metric of the controller has the value want.
func (f *fixture) waitMetric(name string, want float64) {
	f.t.Helper()
	f.Eventually(f.t, fmt.Sprintf("%s at %v", name, want), func() bool { return f.metric(name) == want })
}

// refresh sets the driver's answer for the class's objects on nodes and
// queues them.
func (f *fixture) refresh(bytes int64, nodes ...string) {
	for _, n := range nodes {
		f.csi.set(n, "", bytes)
	}
	f.ctrl.RefreshClass("late")
}

// objects lists the CSIStorageCapacity objects stored in the API.
func (f *fixture) objects() []storagev1.CSIStorageCapacity {
	list, err := f.Client.StorageV1().CSIStorageCapacities(testNamespace).List(f.Ctx, metav1.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return list.Items
}

// waitFor waits until the stored objects satisfy cond, or fails with what
// it saw last.
func (f *fixture) waitFor(what string, cond func([]storagev1.CSIStorageCapacity) bool) []storagev1.CSIStorageCapacity {
	f.t.Helper()
	var last []storagev1.CSIStorageCapacity
	f.Await(f.t, what, func() error {
		if last = f.objects(); !cond(last) {
			return fmt.Errorf("objects: %s", describe(last))
		}
		return nil
	})
	return last
}

func describe(objs []storagev1.CSIStorageCapacity) string {
	out := ""
	for _, o := range objs {
		out += fmt.Sprintf("\n  %s class=%s topology=%s capacity=%s labels=%v owners=%d", o.Name, o.StorageClassName, selectorKey(o.NodeTopology), o.Capacity, o.Labels, len(o.OwnerReferences))
	}
	return out
}

func node(name string, labels map[string]string) *v1.Node {
	return testutil.NewNode(name, testutil.WithLabel("kubernetes.io/hostname", name), testutil.WithLabels(labels))
}

func csiNode(name string, keys ...string) *storagev1.CSINode {
	return testutil.NewCSINode(name, map[string][]string{testDriver: keys})
}

// nodeWithDriver is a Node labelled with its own segment and its CSINode.
func nodeWithDriver(name string) []runtime.Object {
	return []runtime.Object{node(name, map[string]string{topologyKey1: name}), csiNode(name, topologyKey1)}
}

func class(name string, mode storagev1.VolumeBindingMode, params map[string]string) *storagev1.StorageClass {
	return testutil.NewClass(name, testDriver, testutil.WithBindingMode(mode), testutil.WithParameters(params))
}

// ofClass keeps the objects of a class, by their node's segment value.
func byNode(objs []storagev1.CSIStorageCapacity, className string) map[string]storagev1.CSIStorageCapacity {
	out := map[string]storagev1.CSIStorageCapacity{}
	for _, o := range objs {
		if o.StorageClassName == className && o.NodeTopology != nil {
			out[o.NodeTopology.MatchLabels[topologyKey1]] = o
		}
	}
	return out
}

func qty(v int64) *resource.Quantity { return resource.NewQuantity(v, resource.BinarySI) }

func typesUID(s string) types.UID { return types.UID(s) }
