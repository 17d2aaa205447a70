package cleanup

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// DefaultNodeGoneGrace is how long a node must be missing, or not selected,
// before its PVs are let go without their node agent.
const DefaultNodeGoneGrace = 5 * time.Minute

// Options configure the controller.
type Options struct {
	// Client reads, deletes and patches PersistentVolumes.
	Client kubernetes.Interface
	// Dynamic patches the finalizer and status of LocalVolumes and
	// LocalVolumeSets, and feeds their informers when CRInformers is nil.
	Dynamic dynamic.Interface
	// CRInformers gives the informers of LocalVolumes and LocalVolumeSets.
	// A dynamicinformer.DynamicSharedInformerFactory fits; the caller
	// starts it after New. Nil makes the controller watch them itself over
	// Dynamic, in all namespaces, with informers that Run starts and stops.
	CRInformers CRInformerFactory
	// VolumeInformer and NodeInformer are the shared PV and Node
	// informers; the caller starts them after New. Required when Enabled,
	// unused (and never instantiated) otherwise.
	VolumeInformer coreinformers.PersistentVolumeInformer
	NodeInformer   coreinformers.NodeInformer
	// Enabled is the LocalVolumeCleanup feature gate. Off, the controller
	// only removes the finalizer from every LocalVolume and LocalVolumeSet
	// that still has it, so turning the gate off never leaves one stuck.
	Enabled bool
	// EventRecorder receives the events, recorded on object references to
	// the LocalVolumes and LocalVolumeSets, so its scheme need not know
	// them. Nil drops them.
	EventRecorder record.EventRecorder
	// Metrics receive the controller's metrics; nil keeps a private,
	// unregistered set.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil is exponential from
	// 1s to 5m.
	RateLimiter workqueue.TypedRateLimiter[string]
	// Clock measures how long a node has been gone; nil is the real clock.
	Clock clock.Clock
	// NodeGoneGrace is how long a node must be missing, or no longer
	// selected, before the PVs on it are let go; 0 is
	// DefaultNodeGoneGrace.
	NodeGoneGrace time.Duration
}

// Controller keeps the local-volume-protection finalizer on LocalVolumes
// and LocalVolumeSets and, when one is deleted, gets its PVs deleted before
// it lets the finalizer go. See the package documentation for the rules.
type Controller struct {
	client        kubernetes.Interface
	dynamic       dynamic.Interface
	enabled       bool
	recorder      record.EventRecorder
	metrics       *Metrics
	clock         clock.Clock
	nodeGoneGrace time.Duration
	queue         workqueue.TypedRateLimitingInterface[string]

	kinds map[string]*kind
	// own is set when the controller made its CR informers itself.
	// own is the CR informer factory the controller made for itself, when
	// Options.CRInformers was nil; Run starts and stops it.
	own dynamicinformer.DynamicSharedInformerFactory

	// Set only when enabled.
	volumes     corelisters.PersistentVolumeLister
	volumeIndex cache.Indexer
	volumesSync cache.InformerSynced
	nodeIndex   cache.Indexer
	nodesSynced cache.InformerSynced

	mu sync.Mutex
	// blocked is what was announced of each owner whose deletion is
	// blocked, by owner key.
	blocked map[string]blockedOwner
	// unreachable records since when an owner has seen a node missing or
	// not selected.
	unreachable map[unreachableKey]time.Time
}

// New checks opts and registers the event handlers and indexes on the
// informers; call it before they start.
func New(opts Options) (*Controller, error) {
	switch {
	case opts.Client == nil:
		return nil, errors.New("local volume cleanup controller needs a client")
	case opts.Dynamic == nil:
		return nil, errors.New("local volume cleanup controller needs a dynamic client")
	case opts.Enabled && opts.VolumeInformer == nil:
		return nil, errors.New("local volume cleanup controller needs a PersistentVolume informer")
	case opts.Enabled && opts.NodeInformer == nil:
		return nil, errors.New("local volume cleanup controller needs a Node informer")
	case opts.NodeGoneGrace < 0:
		return nil, fmt.Errorf("local volume cleanup controller: negative NodeGoneGrace %v", opts.NodeGoneGrace)
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute)
	}
	recorder := opts.EventRecorder
	if recorder == nil {
		// A FakeRecorder without a channel discards what it is given.
		recorder = &record.FakeRecorder{}
	}
	m := opts.Metrics
	if m == nil {
		m = NewMetrics()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	grace := opts.NodeGoneGrace
	if grace == 0 {
		grace = DefaultNodeGoneGrace
	}
	c := &Controller{
		client:        opts.Client,
		dynamic:       opts.Dynamic,
		enabled:       opts.Enabled,
		recorder:      recorder,
		metrics:       m,
		clock:         clk,
		nodeGoneGrace: grace,
		blocked:       map[string]blockedOwner{},
		unreachable:   map[unreachableKey]time.Time{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "local-volume-cleanup"}),
	}

	factory := opts.CRInformers
	if factory == nil {
		c.own = dynamicinformer.NewDynamicSharedInformerFactory(opts.Dynamic, ownResync)
		factory = c.own
	}
	c.kinds = map[string]*kind{}
	for _, k := range []*kind{
		{name: KindLocalVolume, gvr: LocalVolumeResource, nodeSelector: localVolumeSelector},
		{name: KindLocalVolumeSet, gvr: LocalVolumeSetResource, nodeSelector: localVolumeSetSelector},
	} {
		generic := factory.ForResource(k.gvr)
		informer := generic.Informer()
		k.lister, k.synced = generic.Lister(), informer.HasSynced
		if _, err := informer.AddEventHandler(c.ownerHandler(k)); err != nil {
			return nil, err
		}
		c.kinds[k.name] = k
	}
	if !opts.Enabled {
		return c, nil
	}

	volumes := opts.VolumeInformer.Informer()
	if err := addIndexers(volumes, cache.Indexers{ownerIndex: indexByOwner, volumeNodeIndex: indexByVolumeNode}); err != nil {
		return nil, err
	}
	c.volumes, c.volumeIndex, c.volumesSync = opts.VolumeInformer.Lister(), volumes.GetIndexer(), volumes.HasSynced
	if _, err := volumes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onVolume,
		UpdateFunc: func(oldObj, newObj interface{}) { c.onVolume(oldObj); c.onVolume(newObj) },
		DeleteFunc: c.onVolume,
	}); err != nil {
		return nil, err
	}

	nodes := opts.NodeInformer.Informer()
	if err := addIndexers(nodes, cache.Indexers{hostnameIndex: indexByHostname}); err != nil {
		return nil, err
	}
	c.nodeIndex, c.nodesSynced = nodes.GetIndexer(), nodes.HasSynced
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onNodeAdd,
		UpdateFunc: c.onNodeUpdate,
		DeleteFunc: c.onNodeDelete,
	}); err != nil {
		return nil, err
	}
	return c, nil
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
// any finalizer is stale; on, a live owner lacks it, an owner being deleted
// still has it, or a LocalVolumeSet's device count is off.
func (c *Controller) needsSync(k *kind, u *unstructured.Unstructured) bool {
	has := finalizer.Has(u, local.LocalVolumeProtectionFinalizer)
	if !c.enabled {
		return has
	}
	return has == (u.GetDeletionTimestamp() != nil) || c.countStale(k, u)
}

func (c *Controller) ownerHandler(k *kind) cache.ResourceEventHandler {
	enqueue := func(obj interface{}, always bool) {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		if always || c.needsSync(k, u) {
			c.queue.Add(ownerKey(k.name, u.GetNamespace(), u.GetName()))
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
func (c *Controller) enqueueOwner(key string) {
	kindName, _, _, err := splitKey(key)
	k := c.kinds[kindName]
	if err != nil || k == nil {
		return
	}
	u, err := c.cachedOwner(key)
	if err != nil || u == nil {
		return
	}
	if c.needsSync(k, u) {
		c.queue.Add(key)
	}
}

// cachedOwner is the owner key from its informer's cache; nil if absent.
func (c *Controller) cachedOwner(key string) (*unstructured.Unstructured, error) {
	kindName, namespace, name, err := splitKey(key)
	if err != nil {
		return nil, err
	}
	k, ok := c.kinds[kindName]
	if !ok {
		return nil, fmt.Errorf("unknown kind in key %q", key)
	}
	obj, err := k.lister.ByNamespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("%s: cache holds %T, not an unstructured object", key, obj)
	}
	return u, nil
}

func (c *Controller) onVolume(obj interface{}) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if pv, ok := obj.(*corev1.PersistentVolume); ok {
		if key := volumeOwner(pv); key != "" {
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

// Run waits for the informer caches, then runs workers until ctx ends. It
// starts the CR informers if it made them itself. It shuts the queue down
// and waits for the workers (and its own informers) before it returns.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	logger := klog.FromContext(ctx).WithName("local-volume-cleanup")
	ctx = klog.NewContext(ctx, logger)
	if workers < 1 {
		workers = 1
	}
	logger.Info("Starting local volume cleanup controller", "enabled", c.enabled, "nodeGoneGrace", c.nodeGoneGrace, "workers", workers)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		c.queue.ShutDown()
		wg.Wait()
		logger.Info("Stopped local volume cleanup controller")
	}()
	if c.own != nil {
		c.own.Start(ctx.Done())
		defer c.own.Shutdown()
	}
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.cachesSynced()...) {
		return
	}
	for range workers {
		wg.Go(func() { wait.UntilWithContext(ctx, c.worker, time.Second) })
	}
	<-ctx.Done()
}

// cachesSynced lists the caches the workers need.
func (c *Controller) cachesSynced() []cache.InformerSynced {
	var synced []cache.InformerSynced
	for _, k := range c.kinds {
		synced = append(synced, k.synced)
	}
	if c.enabled {
		synced = append(synced, c.volumesSync, c.nodesSynced)
	}
	return synced
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

// errCacheBehind is returned when the API server has PVs of an owner that
// the cache does not show yet; the retry decides on a fresher cache.
var errCacheBehind = errors.New("the PersistentVolume cache is behind the API server")

// processNext syncs one owner off the queue; false means the queue is shut
// down.
func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "owner", key)
	after, err := c.sync(klog.NewContext(ctx, logger), key)
	switch {
	case err == nil:
		c.queue.Forget(key)
		if after > 0 {
			c.queue.AddAfter(key, after)
		}
	case apierrors.IsConflict(err) || errors.Is(err, errCacheBehind):
		// An object changed under the write, or the cache lags; the
		// informer is bringing the new version and the retry decides on
		// it. Routine, not an error.
		logger.V(4).Info("Objects changed during sync, will retry", "err", err)
		c.queue.AddRateLimited(key)
	default:
		logger.Error(err, "Local volume cleanup sync failed, will retry")
		c.queue.AddRateLimited(key)
	}
	return true
}
