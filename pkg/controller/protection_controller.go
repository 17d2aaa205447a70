package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

const (
	// pendingCloneSourceIndex indexes claims that still wait for a clone
	// volume by the namespace/name of the claim they clone.
	pendingCloneSourceIndex = "pending-clone-source"
	// claimUIDIndex finds a claim by UID when the tracker reports on it.
	claimUIDIndex = "claim-uid"
)

// ProtectionControllerOptions configure the protection controller.
type ProtectionControllerOptions struct {
	Client         kubernetes.Interface
	ClaimInformer  coreinformers.PersistentVolumeClaimInformer
	VolumeInformer coreinformers.PersistentVolumeInformer
	// Provisioner tells which CreateVolume calls may be running and undoes
	// the volume of a claim deleted while it was being provisioned.
	Provisioner   *Provisioner
	EventRecorder record.EventRecorder
	// RateLimiter paces retries of a failed sync; nil picks a default.
	RateLimiter workqueue.TypedRateLimiter[string]
}

// ProtectionController owns the two finalizers the provisioner puts on
// claims. It removes cloning-protection from a source claim once no pending
// clone reads it, and provisioning-protection once the claim's PV exists or
// no CreateVolume for it can be running any more.
type ProtectionController struct {
	client      kubernetes.Interface
	claims      corelisters.PersistentVolumeClaimLister
	claimIndex  cache.Indexer
	volumes     corelisters.PersistentVolumeLister
	synced      []cache.InformerSynced
	provisioner *Provisioner
	recorder    record.EventRecorder
	queue       workqueue.TypedRateLimitingInterface[string]

	// held are the claims whose deletion is being held, for the event at
	// the start and end of a hold and the held-claims gauge.
	heldMu sync.Mutex
	held   map[types.UID]bool
	// released maps claims whose provisioning-protection finalizer this
	// process removed to the claim version it removed it from.
	released map[types.UID]string
}

// NewProtectionController registers its indexes and event handlers on the
// informers; call it before they start.
func NewProtectionController(opts ProtectionControllerOptions) (*ProtectionController, error) {
	if opts.Client == nil || opts.ClaimInformer == nil || opts.VolumeInformer == nil || opts.Provisioner == nil {
		return nil, fmt.Errorf("protection controller needs a client, claim and volume informers and the provisioner")
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute)
	}
	recorder := opts.EventRecorder
	if recorder == nil {
		recorder = &record.FakeRecorder{}
	}
	claimInformer := opts.ClaimInformer.Informer()
	if err := claimInformer.AddIndexers(cache.Indexers{
		pendingCloneSourceIndex: pendingCloneSourceKeys,
		claimUIDIndex:           claimUIDKeys,
	}); err != nil {
		return nil, fmt.Errorf("protection controller indexes: %w", err)
	}
	volumeInformer := opts.VolumeInformer.Informer()
	c := &ProtectionController{
		client:      opts.Client,
		claims:      opts.ClaimInformer.Lister(),
		claimIndex:  claimInformer.GetIndexer(),
		volumes:     opts.VolumeInformer.Lister(),
		synced:      []cache.InformerSynced{claimInformer.HasSynced, volumeInformer.HasSynced},
		provisioner: opts.Provisioner,
		recorder:    recorder,
		held:        map[types.UID]bool{},
		released:    map[types.UID]string{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "claim-protection"}),
	}
	if _, err := claimInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onClaim,
		UpdateFunc: func(_, obj interface{}) { c.onClaim(obj) },
		DeleteFunc: c.onClaimDeleted,
	}); err != nil {
		return nil, fmt.Errorf("protection controller claim handler: %w", err)
	}
	if _, err := volumeInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onVolume,
		UpdateFunc: func(_, obj interface{}) { c.onVolume(obj) },
	}); err != nil {
		return nil, fmt.Errorf("protection controller volume handler: %w", err)
	}
	opts.Provisioner.calls.setListener(c.onCallEnded)
	return c, nil
}

// onClaim queues a claim that carries one of our finalizers, and the source
// of a clone whose state changed, since that change may free the source.
func (c *ProtectionController) onClaim(obj interface{}) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	c.forgetReleased(claim)
	if hasFinalizer(claim, CloningProtectionFinalizer) || hasFinalizer(claim, ProvisioningProtectionFinalizer) {
		c.queue.Add(claim.Namespace + "/" + claim.Name)
	}
	if ds := claimDataSource(claim); ds != nil && ds.isClaim() {
		c.queue.Add(ds.Namespace + "/" + ds.Name)
	}
}

func (c *ProtectionController) onClaimDeleted(obj interface{}) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	c.provisioner.calls.forget(claim.UID)
	c.setHeld(claim, false)
	c.heldMu.Lock()
	delete(c.released, claim.UID)
	c.heldMu.Unlock()
	if ds := claimDataSource(claim); ds != nil && ds.isClaim() {
		c.queue.Add(ds.Namespace + "/" + ds.Name)
	}
}

// onVolume queues the claim a new PV is for: its provisioning is over.
func (c *ProtectionController) onVolume(obj interface{}) {
	pv, ok := obj.(*v1.PersistentVolume)
	if !ok || pv.Spec.ClaimRef == nil {
		return
	}
	c.queue.Add(pv.Spec.ClaimRef.Namespace + "/" + pv.Spec.ClaimRef.Name)
}

// onCallEnded queues a claim whose CreateVolume just returned.
func (c *ProtectionController) onCallEnded(uid types.UID) {
	objs, err := c.claimIndex.ByIndex(claimUIDIndex, string(uid))
	if err != nil {
		return
	}
	for _, obj := range objs {
		if claim, ok := obj.(*v1.PersistentVolumeClaim); ok {
			c.queue.Add(claim.Namespace + "/" + claim.Name)
		}
	}
}

// Run runs workers until ctx is done.
func (c *ProtectionController) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	logger.Info("Starting claim protection controller", "workers", workers)
	defer logger.Info("Stopped claim protection controller")
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Go(func() { wait.UntilWithContext(ctx, c.worker, time.Second) })
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
}

func (c *ProtectionController) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *ProtectionController) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "PVC", key)
	if err := c.sync(klog.NewContext(ctx, logger), key); err != nil {
		logger.Error(err, "Claim protection sync failed, will retry")
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
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

func claimUIDKeys(obj interface{}) ([]string, error) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return nil, nil
	}
	return []string{string(claim.UID)}, nil
}
