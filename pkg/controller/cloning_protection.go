package controller

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// pendingCloneSourceIndex indexes claims that still wait for a clone volume by
// the namespace/name of the claim they clone.
const pendingCloneSourceIndex = "pending-clone-source"

// CloningProtectionOptions configure the cloning protection controller.
type CloningProtectionOptions struct {
	Client        kubernetes.Interface
	ClaimInformer coreinformers.PersistentVolumeClaimInformer
	// RateLimiter paces retries of a failed sync; nil picks a default.
	RateLimiter workqueue.TypedRateLimiter[string]
}

// CloningProtectionController removes the cloning-protection finalizer from a
// source claim once no pending clone still reads it.
type CloningProtectionController struct {
	client  kubernetes.Interface
	claims  corelisters.PersistentVolumeClaimLister
	indexer cache.Indexer
	synced  cache.InformerSynced
	queue   workqueue.TypedRateLimitingInterface[string]
}

// NewCloningProtectionController registers its index and event handlers on the
// claim informer; call it before the informer starts.
func NewCloningProtectionController(opts CloningProtectionOptions) (*CloningProtectionController, error) {
	if opts.Client == nil || opts.ClaimInformer == nil {
		return nil, fmt.Errorf("cloning protection controller needs a client and a claim informer")
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute)
	}
	informer := opts.ClaimInformer.Informer()
	if err := informer.AddIndexers(cache.Indexers{pendingCloneSourceIndex: pendingCloneSourceKeys}); err != nil {
		return nil, fmt.Errorf("cloning protection index: %w", err)
	}
	c := &CloningProtectionController{
		client:  opts.Client,
		claims:  opts.ClaimInformer.Lister(),
		indexer: informer.GetIndexer(),
		synced:  informer.HasSynced,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "cloning-protection"}),
	}
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onClaim,
		UpdateFunc: func(_, obj interface{}) { c.onClaim(obj) },
		DeleteFunc: c.onClaim,
	})
	if err != nil {
		return nil, fmt.Errorf("cloning protection event handler: %w", err)
	}
	return c, nil
}

// onClaim queues a protected source claim, and the source of a clone whose
// state changed, since that change may free the source.
func (c *CloningProtectionController) onClaim(obj interface{}) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	if hasFinalizer(claim, CloningProtectionFinalizer) {
		c.queue.Add(claim.Namespace + "/" + claim.Name)
	}
	if ds := claimDataSource(claim); ds != nil && ds.isClaim() {
		c.queue.Add(ds.Namespace + "/" + ds.Name)
	}
}

// Run runs workers until ctx is done.
func (c *CloningProtectionController) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	logger.Info("Starting cloning protection controller", "workers", workers)
	defer logger.Info("Stopped cloning protection controller")
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		return
	}
	for i := 0; i < workers; i++ {
		go wait.UntilWithContext(ctx, c.worker, time.Second)
	}
	<-ctx.Done()
}

func (c *CloningProtectionController) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *CloningProtectionController) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(ctx, key); err != nil {
		klog.FromContext(ctx).Error(err, "Cloning protection sync failed, will retry", "claim", key)
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// sync removes the finalizer from the source claim key when no pending clone
// reads it. It only reads the cache and patches with a resourceVersion
// precondition, so running it again after a crash at any point is safe.
func (c *CloningProtectionController) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	source, err := c.claims.PersistentVolumeClaims(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !hasFinalizer(source, CloningProtectionFinalizer) {
		return nil
	}
	clones, err := c.indexer.ByIndex(pendingCloneSourceIndex, key)
	if err != nil {
		return err
	}
	logger := klog.FromContext(ctx)
	if len(clones) > 0 {
		logger.V(4).Info("Source claim still has pending clones", "claim", key, "pending", len(clones))
		return nil
	}
	if err := removeClaimFinalizer(ctx, c.client, source, CloningProtectionFinalizer); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	logger.V(2).Info("Removed cloning protection finalizer", "claim", key)
	return nil
}

// pendingCloneSourceKeys indexes a claim that clones another claim and has no
// volume yet.
func pendingCloneSourceKeys(obj interface{}) ([]string, error) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok || claim.Spec.VolumeName != "" {
		return nil, nil
	}
	ds := claimDataSource(claim)
	if ds == nil || !ds.isClaim() {
		return nil, nil
	}
	return []string{ds.Namespace + "/" + ds.Name}, nil
}
