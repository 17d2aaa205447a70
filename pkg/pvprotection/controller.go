package pvprotection

import (
	"context"
	"errors"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/finalizer"
)

// Finalizer is the finalizer that holds a PV's deletion while a claim is
// bound to it. It is the name kube-controller-manager uses, so its
// controller and this one manage the same finalizer.
const Finalizer = "kubernetes.io/pv-protection"

// Options configure the controller.
type Options struct {
	Client         kubernetes.Interface
	VolumeInformer coreinformers.PersistentVolumeInformer
	// DriverName limits the controller to PVs with spec.csi.driver equal to
	// it. Required unless AllVolumes is set.
	DriverName string
	// AllVolumes makes every PV in scope, whatever its driver.
	AllVolumes bool
	// EventRecorder receives the hold and release events; nil drops them.
	EventRecorder record.EventRecorder
	// Metrics receive the controller's metrics; nil keeps a private,
	// unregistered set.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil is exponential from
	// 1s to 5m.
	RateLimiter workqueue.TypedRateLimiter[string]
}

// Controller adds the pv-protection finalizer to the PVs in its scope and
// removes it from those being deleted once no claim is bound to them.
type Controller struct {
	client     kubernetes.Interface
	volumes    corelisters.PersistentVolumeLister
	synced     cache.InformerSynced
	driverName string
	allVolumes bool
	recorder   record.EventRecorder
	metrics    *Metrics
	queue      workqueue.TypedRateLimitingInterface[string]

	// held maps the PVs reported as held to the claim that holds them, so
	// a hold is announced once and its end is announced at all.
	heldMu sync.Mutex
	held   map[string]holder
}

// New checks opts and registers the event handlers on the PV informer; call
// it before the informer starts.
func New(opts Options) (*Controller, error) {
	switch {
	case opts.Client == nil:
		return nil, errors.New("pv protection controller needs a client")
	case opts.VolumeInformer == nil:
		return nil, errors.New("pv protection controller needs a PersistentVolume informer")
	case opts.DriverName == "" && !opts.AllVolumes:
		return nil, errors.New("pv protection controller needs a driver name, or AllVolumes")
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
	informer := opts.VolumeInformer.Informer()
	c := &Controller{
		client:     opts.Client,
		volumes:    opts.VolumeInformer.Lister(),
		synced:     informer.HasSynced,
		driverName: opts.DriverName,
		allVolumes: opts.AllVolumes,
		recorder:   recorder,
		metrics:    m,
		held:       map[string]holder{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "pv-protection"}),
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onAdd,
		UpdateFunc: c.onUpdate,
		DeleteFunc: c.onDelete,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// inScope tells whether the controller may write pv.
func (c *Controller) inScope(pv *v1.PersistentVolume) bool {
	return c.allVolumes || (pv.Spec.CSI != nil && pv.Spec.CSI.Driver == c.driverName)
}

// needsSync tells whether pv's finalizer is not what it should be at rest:
// missing on a live PV, or present on one being deleted.
func (c *Controller) needsSync(pv *v1.PersistentVolume) bool {
	if !c.inScope(pv) {
		return false
	}
	return finalizer.Has(pv, Finalizer) == (pv.DeletionTimestamp != nil)
}

func (c *Controller) onAdd(obj interface{}) {
	if pv, ok := obj.(*v1.PersistentVolume); ok && c.needsSync(pv) {
		c.queue.Add(pv.Name)
	}
}

func (c *Controller) onUpdate(oldObj, newObj interface{}) {
	pv, ok := newObj.(*v1.PersistentVolume)
	if !ok {
		return
	}
	old, _ := oldObj.(*v1.PersistentVolume)
	switch {
	case c.needsSync(pv):
	case c.inScope(pv) && pv.DeletionTimestamp != nil && old != nil && old.Status.Phase != pv.Status.Phase:
		// A deleting PV leaving Bound is the moment it may go.
	case c.isHeld(pv.Name):
		// Someone else, kube-controller-manager say, removed the finalizer:
		// the hold must still end.
	default:
		return
	}
	c.queue.Add(pv.Name)
}

// onDelete lets sync forget a held PV that is gone.
func (c *Controller) onDelete(obj interface{}) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if pv, ok := obj.(*v1.PersistentVolume); ok && c.isHeld(pv.Name) {
		c.queue.Add(pv.Name)
	}
}

// Run waits for the informer cache, then runs workers until ctx ends. It
// shuts the queue down and waits for the workers before it returns.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	logger := klog.FromContext(ctx).WithName("pv-protection")
	ctx = klog.NewContext(ctx, logger)
	if workers < 1 {
		workers = 1
	}
	logger.Info("Starting PV protection controller", "driver", c.driverName, "allVolumes", c.allVolumes, "workers", workers)
	var wg sync.WaitGroup
	defer func() {
		c.queue.ShutDown()
		wg.Wait()
		logger.Info("Stopped PV protection controller")
	}()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.synced) {
		return
	}
	for range workers {
		wg.Go(func() { wait.UntilWithContext(ctx, c.worker, time.Second) })
	}
	<-ctx.Done()
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

// processNext syncs one PV off the queue; false means the queue is shut
// down.
func (c *Controller) processNext(ctx context.Context) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "PV", klog.KRef("", name))
	err := c.sync(klog.NewContext(ctx, logger), name)
	switch {
	case err == nil:
		c.queue.Forget(name)
	case apierrors.IsConflict(err):
		// The PV changed under the patch; the informer is bringing the new
		// version and the retry decides on it. Routine, not an error.
		logger.V(4).Info("PV changed during sync, will retry", "err", err)
		c.queue.AddRateLimited(name)
	default:
		logger.Error(err, "PV protection sync failed, will retry")
		c.queue.AddRateLimited(name)
	}
	return true
}
