package cleanup

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// watchVolumesAndNodes registers the indexes and handlers on the PV and
// Node informers, when the controller is enabled.
func (c *Controller) watchVolumesAndNodes(volumeInformer coreinformers.PersistentVolumeInformer, nodeInformer coreinformers.NodeInformer) error {
	volumes := volumeInformer.Informer()
	if err := addIndexers(volumes, cache.Indexers{ownerIndex: indexByOwner, volumeNodeIndex: indexByVolumeNode}); err != nil {
		return err
	}
	c.volumes, c.volumeIndex, c.volumesSync = volumeInformer.Lister(), volumes.GetIndexer(), volumes.HasSynced
	if _, err := volumes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onVolume,
		UpdateFunc: func(oldObj, newObj interface{}) { c.onVolume(oldObj); c.onVolume(newObj) },
		DeleteFunc: c.onVolume,
	}); err != nil {
		return err
	}

	nodes := nodeInformer.Informer()
	if err := addIndexers(nodes, cache.Indexers{hostnameIndex: indexByHostname}); err != nil {
		return err
	}
	c.nodeIndex, c.nodesSynced = nodes.GetIndexer(), nodes.HasSynced
	_, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onNodeAdd,
		UpdateFunc: c.onNodeUpdate,
		DeleteFunc: c.onNodeDelete,
	})
	return err
}

// addIndexers adds the indexers informer does not have yet: another
// controller of this package on the same informers has added them already.
func addIndexers(informer cache.SharedIndexInformer, indexers cache.Indexers) error {
	have := informer.GetIndexer().GetIndexers()
	missing := cache.Indexers{}
	for name, fn := range indexers {
		if _, ok := have[name]; !ok {
			missing[name] = fn
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return informer.AddIndexers(missing)
}

// needsSync tells whether an owner is not what it should be at rest: off,
// any finalizer may be stale (sync decides whether it is this controller's
// to remove); on, a live owner lacks it, an owner being deleted still has
// it, or a LocalVolumeSet's device count is off.
func (c *Controller) needsSync(o *owner) bool {
	has := finalizer.Has(o.meta, local.LocalVolumeProtectionFinalizer)
	if !c.enabled {
		return has
	}
	return has == (o.meta.GetDeletionTimestamp() != nil) || c.countStale(o)
}

func (c *Controller) ownerHandler() cache.ResourceEventHandler {
	enqueue := func(obj interface{}, always bool) {
		o, ok := ownerOf(obj)
		if ok && (always || c.needsSync(o)) {
			c.loop.Add(o.key)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { enqueue(obj, false) },
		UpdateFunc: func(_, newObj interface{}) { enqueue(newObj, false) },
		// Lets sync forget what it remembers of the owner.
		DeleteFunc: func(obj interface{}) { enqueue(obj, true) },
	}
}

// enqueueOwner queues the owner key, on an event of one of its PVs, if the
// cache has it in need of a sync: being deleted with its finalizer (only
// then do its PVs and their nodes matter), or a LocalVolumeSet whose device
// count is off. An owner the cache does not have yet is queued by its own
// add event.
func (c *Controller) enqueueOwner(key OwnerKey) {
	o, err := c.cachedOwner(key)
	if err != nil || o == nil {
		return
	}
	if c.needsSync(o) {
		c.loop.Add(key)
	}
}

func (c *Controller) onVolume(obj interface{}) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if pv, ok := obj.(*corev1.PersistentVolume); ok {
		if key, ok := volumeOwner(pv); ok {
			c.enqueueOwner(key)
		}
	}
}

// enqueueNode queues the owners being deleted that have PVs on node.
func (c *Controller) enqueueNode(node *corev1.Node) {
	for _, name := range nodeNames(node) {
		objs, err := c.volumeIndex.ByIndex(volumeNodeIndex, name)
		if err != nil {
			continue
		}
		for _, obj := range objs {
			c.onVolume(obj)
		}
	}
}

func (c *Controller) onNodeAdd(obj interface{}) {
	if node, ok := obj.(*corev1.Node); ok {
		// A node created again is not gone: its grace period restarts.
		c.nodeReturned(node)
		c.enqueueNode(node)
	}
}

func (c *Controller) onNodeUpdate(oldObj, newObj interface{}) {
	old, ok1 := oldObj.(*corev1.Node)
	node, ok2 := newObj.(*corev1.Node)
	// Only the labels decide whether a node is selected.
	if ok1 && ok2 && !maps.Equal(old.Labels, node.Labels) {
		c.enqueueNode(node)
	}
}

func (c *Controller) onNodeDelete(obj interface{}) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if node, ok := obj.(*corev1.Node); ok {
		c.enqueueNode(node)
	}
}
