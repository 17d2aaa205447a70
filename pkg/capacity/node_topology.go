package capacity

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
)

// allSegments is the one key of the topology queue: every event asks for
// the whole list again, as upstream's does with its key "".
const allSegments = ""

// NodeTopologyOptions configure NewNodeTopology.
type NodeTopologyOptions struct {
	DriverName string
	Nodes      coreinformers.NodeInformer
	CSINodes   storageinformers.CSINodeInformer
	// RateLimiter paces retries of a failed listing; nil is the default.
	RateLimiter workqueue.TypedRateLimiter[string]
	// Processed, if set, is told of every listing (for tests).
	Processed func(key string, result reconcile.Result, err error)
}

// NodeTopology derives the segments from the cluster, as upstream does:
// every node whose CSINode lists the driver contributes the values of the
// driver's topology keys in its labels. A node whose labels lack one of
// the keys is skipped until the kubelet has labelled it.
//
// Node and CSINode events go on a queue of their own, upstream's
// "csitopology", whose sync lists the segments and tells the OnChange
// functions when they changed.
type NodeTopology struct {
	driverName string
	nodes      corelisters.NodeLister
	csiNodes   storagelisters.CSINodeLister
	informers  []cache.InformerSynced
	loop       *reconcile.Loop[string]
	handlers   []func()
	// listed is set by the first successful sync: until then Segments
	// would report none, and the controller would find every object
	// obsolete.
	listed atomic.Bool

	mu       sync.Mutex
	segments map[string]Segment
}

// NewNodeTopology registers its handlers on the informers; call it before
// they start. Node events count only when labels change: heartbeats update
// Nodes every few seconds.
func NewNodeTopology(opts NodeTopologyOptions) (*NodeTopology, error) {
	if opts.DriverName == "" || opts.Nodes == nil || opts.CSINodes == nil {
		return nil, errors.New("node topology needs a driver name and Node and CSINode informers")
	}
	t := &NodeTopology{
		driverName: opts.DriverName,
		nodes:      opts.Nodes.Lister(),
		csiNodes:   opts.CSINodes.Lister(),
		informers:  []cache.InformerSynced{opts.Nodes.Informer().HasSynced, opts.CSINodes.Informer().HasSynced},
	}
	loop, err := reconcile.New(reconcile.Options[string]{
		Name: "node-topology",
		// Upstream's name for its topology queue.
		QueueName:   "csitopology",
		Sync:        t.sync,
		LogValues:   func(string) []any { return nil },
		RateLimiter: opts.RateLimiter,
		Processed:   opts.Processed,
	})
	if err != nil {
		return nil, err
	}
	t.loop = loop

	queue := func(any) { t.loop.Add(allSegments) }
	nodeHandler := reconcile.Handler(nil, queue)
	nodeHandler.AddFunc = queue
	nodeHandler.UpdateFunc = func(oldObj, newObj any) {
		old, ok1 := oldObj.(*v1.Node)
		cur, ok2 := newObj.(*v1.Node)
		if !ok1 || !ok2 || !maps.Equal(old.Labels, cur.Labels) {
			t.loop.Add(allSegments)
		}
	}
	if _, err := opts.Nodes.Informer().AddEventHandler(nodeHandler); err != nil {
		return nil, fmt.Errorf("node topology Node handler: %w", err)
	}
	csiNodeHandler := reconcile.Handler(nil, queue)
	csiNodeHandler.AddFunc = queue
	csiNodeHandler.UpdateFunc = func(oldObj, newObj any) {
		old, ok1 := oldObj.(*storagev1.CSINode)
		cur, ok2 := newObj.(*storagev1.CSINode)
		if !ok1 || !ok2 || !slices.Equal(t.topologyKeys(old), t.topologyKeys(cur)) {
			t.loop.Add(allSegments)
		}
	}
	if _, err := opts.CSINodes.Informer().AddEventHandler(csiNodeHandler); err != nil {
		return nil, fmt.Errorf("node topology CSINode handler: %w", err)
	}
	return t, nil
}

// OnChange must be called before Run.
func (t *NodeTopology) OnChange(fn func()) { t.handlers = append(t.handlers, fn) }

// Synced are the informers' caches and the first listing.
func (t *NodeTopology) Synced() []cache.InformerSynced {
	return append(slices.Clone(t.informers), t.listed.Load)
}

// Segments are those of the last listing.
func (t *NodeTopology) Segments() (map[string]Segment, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.segments), nil
}

// Run lists the segments once the informers are in, and again on every
// change, until ctx ends.
func (t *NodeTopology) Run(ctx context.Context) {
	// A cluster without Nodes or CSINodes sends no event, and the first
	// listing must happen anyway.
	t.loop.Add(allSegments)
	// One worker: there is one key.
	t.loop.Run(ctx, 1, t.informers...)
}

func (t *NodeTopology) sync(ctx context.Context, _ string) (reconcile.Result, error) {
	segments, err := t.list()
	if err != nil {
		return reconcile.Done, fmt.Errorf("listing topology segments: %w", err)
	}
	t.mu.Lock()
	changed := !slices.Equal(sortedKeys(t.segments), sortedKeys(segments))
	t.segments = segments
	t.mu.Unlock()
	t.listed.Store(true)
	if !changed {
		return reconcile.Done, nil
	}
	klog.FromContext(ctx).V(5).Info("Segments changed, telling the capacity controller", "segments", sortedKeys(segments))
	for _, fn := range t.handlers {
		fn()
	}
	return reconcile.Done, nil
}

// topologyKeys are the driver's keys on csiNode, sorted; nil when the
// driver is not on the node, empty when it is without topology.
func (t *NodeTopology) topologyKeys(csiNode *storagev1.CSINode) []string {
	if csiNode == nil {
		return nil
	}
	for _, d := range csiNode.Spec.Drivers {
		if d.Name == t.driverName {
			keys := slices.Clone(d.TopologyKeys)
			if keys == nil {
				keys = []string{}
			}
			slices.Sort(keys)
			return keys
		}
	}
	return nil
}

// list reads the segments from the caches.
func (t *NodeTopology) list() (map[string]Segment, error) {
	csiNodes, err := t.csiNodes.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	segments := map[string]Segment{}
nodes:
	for _, csiNode := range csiNodes {
		keys := t.topologyKeys(csiNode)
		if keys == nil {
			continue
		}
		node, err := t.nodes.Get(csiNode.Name)
		if apierrors.IsNotFound(err) {
			// A CSINode outlives its Node briefly.
			continue
		}
		if err != nil {
			return nil, err
		}
		values := make(map[string]string, len(keys))
		for _, key := range keys {
			value, ok := node.Labels[key]
			if !ok {
				continue nodes
			}
			values[key] = value
		}
		segment := NewSegment(values)
		segments[segment.Key()] = segment
	}
	return segments, nil
}
