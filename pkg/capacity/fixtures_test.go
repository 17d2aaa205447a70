package capacity

import (
	"context"
	"fmt"
	"maps"
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
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"
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
	t       *testing.T
	ctx     context.Context
	client  *fake.Clientset
	csi     *fakeCSI
	factory informers.SharedInformerFactory
	ctrl    *Controller
}

type fixtureOptions struct {
	objects   []runtime.Object
	owner     *metav1.OwnerReference
	immediate bool
	topology  Topology // nil: nodes from the informers
	poll      time.Duration
}

func newFixture(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	client := fake.NewClientset(o.objects...)
	var generated atomic.Int32
	client.PrependReactor("create", "csistoragecapacities", func(action k8stesting.Action) (bool, runtime.Object, error) {
		obj := action.(k8stesting.CreateAction).GetObject().(*storagev1.CSIStorageCapacity)
		if obj.Name == "" {
			obj.Name = fmt.Sprintf("%s%d", obj.GenerateName, generated.Add(1))
		}
		obj.CreationTimestamp = metav1.Now()
		obj.UID = types.UID("uid-" + obj.Name)
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	topo := o.topology
	if topo == nil {
		nt, err := NewNodeTopology(NodeTopologyOptions{
			DriverName: testDriver, Nodes: factory.Core().V1().Nodes(), CSINodes: factory.Storage().V1().CSINodes(),
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
	f := &fixture{t: t, ctx: ctx, client: client, csi: &fakeCSI{bytes: map[string]int64{}}, factory: factory}
	ctrl, err := New(Options{
		DriverName: testDriver, ManagedBy: ManagedBy, Namespace: testNamespace, Owner: o.owner,
		Client: client, CSI: f.csi, Timeout: time.Second, PollInterval: poll, ImmediateBinding: o.immediate,
		Topology: topo, ClassInformer: factory.Storage().V1().StorageClasses(),
		CapacityInformer: factory.Storage().V1().CSIStorageCapacities(),
	})
	if err != nil {
		t.Fatal(err)
	}
	f.ctrl = ctrl
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	return f
}

func (f *fixture) start() {
	f.factory.Start(f.ctx.Done())
	go f.ctrl.Run(f.ctx, 2)
}

// objects lists the CSIStorageCapacity objects stored in the API.
func (f *fixture) objects() []storagev1.CSIStorageCapacity {
	list, err := f.client.StorageV1().CSIStorageCapacities(testNamespace).List(f.ctx, metav1.ListOptions{})
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
	err := wait.PollUntilContextTimeout(f.ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		last = f.objects()
		return cond(last), nil
	})
	if err != nil {
		f.t.Fatalf("waiting for %s: %v; objects: %s", what, err, describe(last))
	}
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
	l := map[string]string{"kubernetes.io/hostname": name}
	maps.Copy(l, labels)
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}
}

func csiNode(name string, keys ...string) *storagev1.CSINode {
	return &storagev1.CSINode{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
			{Name: testDriver, NodeID: name, TopologyKeys: keys},
		}},
	}
}

// nodeWithDriver is a Node labelled with its own segment and its CSINode.
func nodeWithDriver(name string) []runtime.Object {
	return []runtime.Object{node(name, map[string]string{topologyKey1: name}), csiNode(name, topologyKey1)}
}

func class(name string, mode storagev1.VolumeBindingMode, params map[string]string) *storagev1.StorageClass {
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: testDriver,
		VolumeBindingMode: &mode, Parameters: params,
	}
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
