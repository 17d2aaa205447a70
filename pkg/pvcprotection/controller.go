package pvcprotection

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Finalizer is the finalizer that keeps a claim while a pod may use it; the
// same as Kubernetes', so this controller and kube-controller-manager's (or
// its admission plugin) agree on it.
const Finalizer = "kubernetes.io/pvc-protection"

// Options configure the controller.
type Options struct {
	Client        kubernetes.Interface
	ClaimInformer coreinformers.PersistentVolumeClaimInformer
	// PodInformer should be used by this controller only, with TrimPod as
	// its transform.
	PodInformer coreinformers.PodInformer
	// ClassLister finds the provisioner of a claim's class; needed unless
	// AllClaims.
	ClassLister storagelisters.StorageClassLister
	// DriverName is the provisioner whose claims are protected.
	DriverName string
	// AllClaims protects every claim, whatever provisions it.
	AllClaims bool
	// EventRecorder gets the hold and release events; nil drops them.
	EventRecorder record.EventRecorder
	// Metrics are updated if set and registered.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil: exponential 1s..5m.
	RateLimiter workqueue.TypedRateLimiter[string]
	// Clock is for tests; nil is the real clock.
	Clock clock.PassiveClock
}

// Controller keeps the pvc-protection finalizer on claims, and removes it
// from a claim being deleted once no pod can use the claim any more.
type Controller struct {
	client     kubernetes.Interface
	claims     corelisters.PersistentVolumeClaimLister
	pods       cache.Indexer
	classes    storagelisters.StorageClassLister
	driverName string
	allClaims  bool
	synced     []cache.InformerSynced
	recorder   record.EventRecorder
	metrics    *Metrics
	stamps     *stamper
	fresh      podFreshness
	queue      workqueue.TypedRateLimitingInterface[string]
	// notReadyDelay is how soon a claim is looked at again when the pod
	// index is about to catch up with a freshness check.
	notReadyDelay time.Duration

	mu        sync.Mutex
	states    map[string]*claimState
	heldCount int
}

// New adds the pod index and the event handlers to the informers; call it
// before they start.
func New(opts Options) (*Controller, error) {
	if opts.Client == nil || opts.ClaimInformer == nil || opts.PodInformer == nil {
		return nil, fmt.Errorf("pvc protection needs a client and claim and pod informers")
	}
	if !opts.AllClaims && (opts.DriverName == "" || opts.ClassLister == nil) {
		return nil, fmt.Errorf("pvc protection of one driver's claims needs the driver name and a storage class lister")
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute)
	}
	recorder := opts.EventRecorder
	if recorder == nil {
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
	claimInformer := opts.ClaimInformer.Informer()
	podInformer := opts.PodInformer.Informer()
	pods := podInformer.GetIndexer()
	if _, ok := pods.GetIndexers()[podClaimIndex]; !ok {
		if err := podInformer.AddIndexers(cache.Indexers{podClaimIndex: podClaimKeys}); err != nil {
			return nil, fmt.Errorf("pvc protection pod index: %w", err)
		}
	}
	stamps := &stamper{clock: clk}
	c := &Controller{
		client:        opts.Client,
		claims:        opts.ClaimInformer.Lister(),
		pods:          pods,
		classes:       opts.ClassLister,
		driverName:    opts.DriverName,
		allClaims:     opts.AllClaims,
		synced:        []cache.InformerSynced{claimInformer.HasSynced, podInformer.HasSynced},
		recorder:      recorder,
		metrics:       m,
		stamps:        stamps,
		fresh:         newChecker(opts.Client, pods, stamps, m),
		notReadyDelay: 100 * time.Millisecond,
		states:        map[string]*claimState{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "pvc-protection"}),
	}
	if _, err := claimInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onClaim,
		UpdateFunc: func(_, obj interface{}) { c.onClaim(obj) },
		DeleteFunc: c.onClaimDeleted,
	}); err != nil {
		return nil, fmt.Errorf("pvc protection claim handler: %w", err)
	}
	if _, err := podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { c.onPod(nil, obj, false) },
		UpdateFunc: func(old, obj interface{}) { c.onPod(old, obj, false) },
		DeleteFunc: func(obj interface{}) { c.onPod(nil, obj, true) },
	}); err != nil {
		return nil, fmt.Errorf("pvc protection pod handler: %w", err)
	}
	return c, nil
}

// Run runs workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	logger.Info("Starting PVC protection controller", "driver", c.driverName, "allClaims", c.allClaims, "workers", workers)
	defer logger.Info("Stopped PVC protection controller")
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return
	}
	if rv := c.pods.LastStoreSyncResourceVersion(); checkResourceVersion(rv) != nil {
		logger.Info("The pod cache does not report the resourceVersion it has applied (is the client-go AtomicFIFO feature off?); every check for a deleted claim will list the namespace's pods", "cacheVersion", rv)
	}
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Go(func() { wait.UntilWithContext(ctx, c.worker, time.Second) })
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "PVC", key)
	err := c.sync(klog.NewContext(ctx, logger), key)
	switch {
	case err == nil:
		c.queue.Forget(key)
	case apierrors.IsConflict(err):
		// The claim changed since the cache copy: decide again from the
		// newer one, which is on its way.
		logger.V(3).Info("Claim changed while its finalizer was written, will retry")
		c.queue.AddRateLimited(key)
	default:
		logger.Error(err, "PVC protection sync failed, will retry")
		c.queue.AddRateLimited(key)
	}
	return true
}
