package capacity

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
)

// Topology lists the segments the driver serves now.
type Topology interface {
	// Segments lists the current segments by key.
	Segments() (map[string]Segment, error)
	// OnChange registers fn, called when the segments may have changed.
	OnChange(fn func())
	// Synced are the caches Segments reads.
	Synced() []cache.InformerSynced
}

// FixedTopology is one segment that never changes: the local node's with
// --node-deployment, or every node for a driver without topology.
type FixedTopology struct{ Segment Segment }

func (f FixedTopology) Segments() (map[string]Segment, error) {
	return map[string]Segment{f.Segment.Key(): f.Segment}, nil
}
func (FixedTopology) OnChange(func())                {}
func (FixedTopology) Synced() []cache.InformerSynced { return nil }

// NodeTopology derives the segments from the cluster, as upstream does:
// every node whose CSINode lists the driver contributes the values of the
// driver's topology keys in its labels. A node whose labels lack one of
// the keys is skipped until the kubelet has labelled it.
type NodeTopology struct {
	driverName string
	nodes      corelisters.NodeLister
	csiNodes   storagelisters.CSINodeLister
	synced     []cache.InformerSynced
	handlers   []func()
}

// NewNodeTopology registers its handlers on the informers; call it before
// they start. Node events count only when labels change: heartbeats update
// Nodes every few seconds.
func NewNodeTopology(driverName string, nodes coreinformers.NodeInformer, csiNodes storageinformers.CSINodeInformer) (*NodeTopology, error) {
	if driverName == "" || nodes == nil || csiNodes == nil {
		return nil, errors.New("node topology needs a driver name and Node and CSINode informers")
	}
	t := &NodeTopology{
		driverName: driverName,
		nodes:      nodes.Lister(),
		csiNodes:   csiNodes.Lister(),
		synced:     []cache.InformerSynced{nodes.Informer().HasSynced, csiNodes.Informer().HasSynced},
	}
	nodeHandler := reconcile.Handler(nil, func(any) { t.changed() })
	nodeHandler.AddFunc = func(any) { t.changed() }
	nodeHandler.UpdateFunc = func(oldObj, newObj any) {
		old, ok1 := oldObj.(*v1.Node)
		cur, ok2 := newObj.(*v1.Node)
		if !ok1 || !ok2 || !maps.Equal(old.Labels, cur.Labels) {
			t.changed()
		}
	}
	if _, err := nodes.Informer().AddEventHandler(nodeHandler); err != nil {
		return nil, fmt.Errorf("node topology Node handler: %w", err)
	}
	csiNodeHandler := reconcile.Handler(nil, func(any) { t.changed() })
	csiNodeHandler.AddFunc = func(any) { t.changed() }
	csiNodeHandler.UpdateFunc = func(oldObj, newObj any) {
		old, ok1 := oldObj.(*storagev1.CSINode)
		cur, ok2 := newObj.(*storagev1.CSINode)
		if !ok1 || !ok2 || !slices.Equal(t.topologyKeys(old), t.topologyKeys(cur)) {
			t.changed()
		}
	}
	if _, err := csiNodes.Informer().AddEventHandler(csiNodeHandler); err != nil {
		return nil, fmt.Errorf("node topology CSINode handler: %w", err)
	}
	return t, nil
}

// OnChange must be called before the informers start.
func (t *NodeTopology) OnChange(fn func()) { t.handlers = append(t.handlers, fn) }

func (t *NodeTopology) Synced() []cache.InformerSynced { return t.synced }

func (t *NodeTopology) changed() {
	for _, fn := range t.handlers {
		fn()
	}
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

func (t *NodeTopology) Segments() (map[string]Segment, error) {
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
