package capacity

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
)

// Labels of every CSIStorageCapacity the controller manages: upstream's,
// so a swap adopts the other's objects.
const (
	DriverNameLabel = "csi.storage.k8s.io/drivername"
	ManagedByLabel  = "csi.storage.k8s.io/managed-by"
)

// ManagedBy is the managed-by label value of a central sidecar; a sidecar
// per node appends its node name (see ManagedByNode).
const ManagedBy = "external-provisioner"

// CapacityClient is the part of the CSI controller service the controller
// calls.
type CapacityClient interface {
	GetCapacity(ctx context.Context, in *csi.GetCapacityRequest, opts ...grpc.CallOption) (*csi.GetCapacityResponse, error)
}

// Options configure the controller.
type Options struct {
	DriverName string
	// ManagedBy is the managed-by label value: ManagedBy, or ManagedByNode
	// with --node-deployment. Objects with other values are not touched.
	ManagedBy string
	// Namespace holds the objects (the sidecar's own, from NAMESPACE).
	Namespace string
	// Owner, if set, becomes the controlling owner of every object, so
	// they go with the sidecar's DaemonSet, StatefulSet or Deployment.
	Owner *metav1.OwnerReference
	// Client writes the objects; upstream gives it its own rate limits
	// (--kube-api-capacity-qps and -burst).
	Client kubernetes.Interface
	CSI    CapacityClient
	// Timeout bounds each GetCapacity (--timeout).
	Timeout time.Duration
	// PollInterval is how often every object is refreshed.
	PollInterval time.Duration
	// ImmediateBinding publishes for classes with Immediate binding too.
	ImmediateBinding bool
	Topology         Topology
	ClassInformer    storageinformers.StorageClassInformer
	// CapacityInformer must list only Namespace's objects with this
	// sidecar's labels (Selector gives them).
	CapacityInformer storageinformers.CSIStorageCapacityInformer
	// RateLimiter paces retries of a failed sync; nil is the default.
	RateLimiter workqueue.TypedRateLimiter[Key]
	// WriteRateLimiter paces retries of a failed update; nil is the
	// default.
	WriteRateLimiter workqueue.TypedRateLimiter[Key]
	// LargestRequest, if set, is the size in bytes of the largest claim of
	// a class the scheduler may still place, and whether there is one:
	// updates whose value crosses it are written first. Called by syncs,
	// so it must be cheap.
	LargestRequest func(class string) (bytes int64, known bool)
	// Processed, if set, is told of every sync (for tests).
	Processed func(key Key, result reconcile.Result, err error)
	// Written, if set, is told of every attempt at an update (for tests).
	Written func(key Key, err error)
}

// Key is one desired or existing object: a segment (Segment.Key) and a
// StorageClass name.
type Key struct {
	Segment string
	Class   string
}

// topologyKey asks for the topology's segments to be read again: the
// topology's own queue (csitopology for nodes) has seen them change.
var topologyKey = Key{Segment: "\x00topology"}

// itemIndex finds the objects of a key.
const itemIndex = "capacity-item"

// Controller maintains the CSIStorageCapacity objects of one sidecar.
type Controller struct {
	metrics.BaseStableCollector

	opts     Options
	classes  storagelisters.StorageClassLister
	objects  cache.Indexer
	synced   []cache.InformerSynced
	loop     *reconcile.Loop[Key]
	segments segmentSet
	created  createdObjects
	// refreshes date each object's last refresh, for the metrics.
	refreshes refreshTimes
	// writes are the updates syncs decided, for the writers.
	writes *pendingWrites
}

// New registers the controller's index and handlers on the informers;
// call it before they start.
func New(opts Options) (*Controller, error) {
	switch {
	case opts.DriverName == "" || opts.ManagedBy == "" || opts.Namespace == "":
		return nil, errors.New("capacity controller needs a driver name, a managed-by value and a namespace")
	case opts.Client == nil || opts.CSI == nil || opts.Topology == nil:
		return nil, errors.New("capacity controller needs a client, a CSI client and a topology")
	case opts.ClassInformer == nil || opts.CapacityInformer == nil:
		return nil, errors.New("capacity controller needs StorageClass and CSIStorageCapacity informers")
	case opts.Timeout <= 0 || opts.PollInterval <= 0:
		return nil, errors.New("capacity controller needs a positive timeout and poll interval")
	}
	capacities := opts.CapacityInformer.Informer()
	if err := capacities.AddIndexers(cache.Indexers{itemIndex: itemIndexKeys}); err != nil {
		return nil, fmt.Errorf("capacity controller index: %w", err)
	}
	classes := opts.ClassInformer.Informer()
	writeLimiter := opts.WriteRateLimiter
	if writeLimiter == nil {
		writeLimiter = reconcile.DefaultRateLimiter[Key]()
	}
	c := &Controller{
		opts:      opts,
		classes:   opts.ClassInformer.Lister(),
		objects:   capacities.GetIndexer(),
		synced:    append([]cache.InformerSynced{classes.HasSynced, capacities.HasSynced}, opts.Topology.Synced()...),
		created:   createdObjects{byKey: map[Key]createdObject{}},
		refreshes: refreshTimes{byKey: map[Key]time.Time{}},
		writes:    newPendingWrites(writeLimiter),
	}
	loop, err := reconcile.New(reconcile.Options[Key]{
		Name: "storage-capacity",
		// Upstream's name for its CSIStorageCapacity queue.
		QueueName:   "csistoragecapacity",
		Sync:        c.sync,
		LogValues:   logValues,
		RateLimiter: opts.RateLimiter,
		Processed:   opts.Processed,
	})
	if err != nil {
		return nil, err
	}
	c.loop = loop
	if _, err := classes.AddEventHandler(reconcile.Handler(c.onClass, c.onClass)); err != nil {
		return nil, fmt.Errorf("capacity controller StorageClass handler: %w", err)
	}
	if _, err := capacities.AddEventHandler(reconcile.Handler(c.onObject, c.onObjectDeleted)); err != nil {
		return nil, fmt.Errorf("capacity controller CSIStorageCapacity handler: %w", err)
	}
	opts.Topology.OnChange(func() { c.loop.Add(topologyKey) })
	return c, nil
}

// Selector selects the objects of a sidecar: for the CSIStorageCapacity
// informer, which must watch no others.
func Selector(driverName, managedBy string) labels.Selector {
	return labels.SelectorFromSet(labels.Set{DriverNameLabel: driverName, ManagedByLabel: managedBy})
}

func logValues(key Key) []any {
	if key == topologyKey {
		return []any{"item", "topology"}
	}
	return []any{"segment", key.Segment, "storageClass", key.Class}
}

// Run runs the topology, lists its segments once the caches are in, then
// polls, syncs and writes until ctx ends, and returns once the topology
// and the writers have stopped too. There are as many writers as workers.
func (c *Controller) Run(ctx context.Context, workers int) {
	var topology sync.WaitGroup
	defer topology.Wait()
	// The topology's first listing is one of the caches waited for below.
	topology.Go(func() { c.opts.Topology.Run(ctx) })
	logger := klog.FromContext(ctx).WithName("storage-capacity")
	if !cache.WaitForNamedCacheSyncWithContext(klog.NewContext(ctx, logger), c.synced...) {
		return
	}
	// Workers decide with the segments: they must be known before the
	// first key is synced, or every object would look obsolete.
	if err := c.listSegments(ctx); err != nil {
		logger.Error(err, "Listing topology segments, will retry")
		c.loop.Add(topologyKey)
	}
	writers := c.startWriters(klog.NewContext(ctx, logger), workers)
	defer writers.Wait()
	go wait.UntilWithContext(ctx, c.enqueueAll, c.opts.PollInterval)
	c.loop.Run(ctx, workers, c.synced...)
}

// enqueueAll queues every desired object and every existing one, so each
// is refreshed or removed: the poll, and the first pass after a start.
func (c *Controller) enqueueAll(ctx context.Context) {
	for key := range c.desired() {
		c.enqueue(key)
	}
	for _, obj := range c.objects.List() {
		if capacity, ok := obj.(*storagev1.CSIStorageCapacity); ok {
			c.enqueue(keyOf(capacity))
		}
	}
}

// desired lists the keys that should have an object now.
func (c *Controller) desired() map[Key]bool {
	out := map[Key]bool{}
	classes, err := c.classes.List(labels.Everything())
	if err != nil {
		return out
	}
	for _, segment := range c.segments.keys() {
		for _, class := range classes {
			if c.wanted(class) {
				out[Key{Segment: segment, Class: class.Name}] = true
			}
		}
	}
	return out
}

// wanted tells whether class gets objects: the driver's, and with
// WaitForFirstConsumer binding unless Immediate classes were asked for
// (the scheduler reads capacity only for delayed binding).
func (c *Controller) wanted(class *storagev1.StorageClass) bool {
	if class.Provisioner != c.opts.DriverName {
		return false
	}
	immediate := class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingImmediate
	return c.opts.ImmediateBinding || !immediate
}

func (c *Controller) onClass(obj any) {
	class, ok := obj.(*storagev1.StorageClass)
	if !ok || class.Provisioner != c.opts.DriverName {
		return
	}
	c.RefreshClass(class.Name)
}

func (c *Controller) onObject(obj any) {
	if capacity, ok := obj.(*storagev1.CSIStorageCapacity); ok && c.managed(capacity) {
		c.enqueue(keyOf(capacity))
	}
}

func (c *Controller) onObjectDeleted(obj any) {
	capacity, ok := obj.(*storagev1.CSIStorageCapacity)
	if !ok || !c.managed(capacity) {
		return
	}
	key := keyOf(capacity)
	// Deleted before the informer showed its creation: create again.
	c.created.forgetName(key, capacity.Name)
	c.enqueue(key)
}

// managed tells whether an object is this sidecar's, by its labels.
func (c *Controller) managed(capacity *storagev1.CSIStorageCapacity) bool {
	return capacity.Labels[DriverNameLabel] == c.opts.DriverName && capacity.Labels[ManagedByLabel] == c.opts.ManagedBy
}

func keyOf(capacity *storagev1.CSIStorageCapacity) Key {
	return Key{Segment: selectorKey(capacity.NodeTopology), Class: capacity.StorageClassName}
}

func itemIndexKeys(obj any) ([]string, error) {
	capacity, ok := obj.(*storagev1.CSIStorageCapacity)
	if !ok {
		return nil, nil
	}
	return []string{indexValue(keyOf(capacity))}, nil
}

func indexValue(key Key) string { return key.Segment + "\x00" + key.Class }

// segmentSet is the segments last listed, read by every sync.
type segmentSet struct {
	mu    sync.RWMutex
	byKey map[string]Segment
}

func (s *segmentSet) get(key string) (Segment, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	seg, ok := s.byKey[key]
	return seg, ok
}

func (s *segmentSet) keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return sortedKeys(s.byKey)
}

// replace stores segments and returns the keys that came or went.
func (s *segmentSet) replace(segments map[string]Segment) (changed []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key := range segments {
		if _, ok := s.byKey[key]; !ok {
			changed = append(changed, key)
		}
	}
	for key := range s.byKey {
		if _, ok := segments[key]; !ok {
			changed = append(changed, key)
		}
	}
	s.byKey = segments
	return changed
}
