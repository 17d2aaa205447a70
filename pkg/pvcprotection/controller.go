package pvcprotection

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
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
	// InTreePlugin, the in-tree plugin the driver replaces (CSI
	// migration), puts claims of its StorageClasses in scope too, before
	// the PV controller names the driver on them; "" for none.
	InTreePlugin string
	// AllClaims protects every claim, whatever provisions it.
	AllClaims bool
	// EventRecorder gets the hold and release events. Required.
	EventRecorder record.EventRecorder
	// Metrics are updated if set and registered.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil is the reconcile
	// loop's default.
	RateLimiter workqueue.TypedRateLimiter[cache.ObjectName]
	// Processed, if set, is told of every sync of a claim (for tests).
	Processed func(key cache.ObjectName, result reconcile.Result, err error)
	// Clock is for tests; nil is the real clock.
	Clock clock.PassiveClock
}

// Controller keeps the pvc-protection finalizer on claims, and removes it
// from a claim being deleted once no pod can use the claim any more.
type Controller struct {
	client  kubernetes.Interface
	target  finalizer.Target
	claims  corelisters.PersistentVolumeClaimLister
	pods    cache.Indexer
	classes storagelisters.StorageClassLister
	// driver: see Options.DriverName and InTreePlugin.
	driver    driverscope.Driver
	allClaims bool
	synced    []cache.InformerSynced
	metrics   *Metrics
	stamps    *stamper
	fresh     podFreshness
	loop      *reconcile.Loop[cache.ObjectName]
	// notReadyDelay is how soon a claim is looked at again when the pod
	// index is about to catch up with a freshness check.
	notReadyDelay time.Duration
	// holds are the claims whose deletion is announced as held, with the
	// pod the last event named.
	holds *finalizer.Holds[cache.ObjectName]

	mu     sync.Mutex
	states map[cache.ObjectName]*claimState
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
	if opts.EventRecorder == nil {
		return nil, fmt.Errorf("pvc protection needs an event recorder")
	}
	m := cmp.Or(opts.Metrics, NewMetrics())
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
		target:        finalizer.PersistentVolumeClaims(opts.Client),
		claims:        opts.ClaimInformer.Lister(),
		pods:          pods,
		classes:       opts.ClassLister,
		driver:        driverscope.Driver{Name: opts.DriverName, InTreePlugin: opts.InTreePlugin},
		allClaims:     opts.AllClaims,
		synced:        []cache.InformerSynced{claimInformer.HasSynced, podInformer.HasSynced},
		metrics:       m,
		stamps:        stamps,
		fresh:         newChecker(opts.Client, pods, namespacePodCount(pods), stamps, m),
		notReadyDelay: 100 * time.Millisecond,
		holds: finalizer.NewHolds[cache.ObjectName](finalizer.HoldsOptions{
			Gauge: m.HeldClaims, Age: m.OldestHoldAge, Recorder: opts.EventRecorder,
			HeldReason: ReasonDeletionHeld, ReleasedReason: ReasonDeletionReleased,
		}),
		states: map[cache.ObjectName]*claimState{},
	}
	loop, err := reconcile.New(reconcile.Options[cache.ObjectName]{
		Name:        "pvc-protection",
		Sync:        c.sync,
		LogValues:   reconcile.ObjectNameLogValues("PVC"),
		RateLimiter: opts.RateLimiter,
		Processed:   opts.Processed,
	})
	if err != nil {
		return nil, err
	}
	c.loop = loop
	if _, err := claimInformer.AddEventHandler(reconcile.Handler(c.onClaim, c.onClaimDeleted)); err != nil {
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

// Run waits for the caches, then syncs claims with workers until ctx ends.
// It shuts the queue down and waits for the workers before it returns.
func (c *Controller) Run(ctx context.Context, workers int) {
	// The pod cache reports the version it has applied once it is synced;
	// the loop waits for the caches again, at once.
	if cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		if rv := c.pods.LastStoreSyncResourceVersion(); checkResourceVersion(rv) != nil {
			klog.FromContext(ctx).WithName("pvc-protection").Info("The pod cache does not report the resourceVersion it has applied (is the client-go AtomicFIFO feature off?); every check for a deleted claim will list the namespace's pods", "cacheVersion", rv)
		}
	}
	c.loop.Run(ctx, workers, c.synced...)
}
