package claimprotection

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// CallStates tells what this process knows about the CreateVolume calls of
// a claim, and reports when one ends. A provisionstate.Tracker fits.
type CallStates interface {
	State(uid types.UID) provisionstate.CallState
	Forget(uid types.UID)
	Subscribe(fn func(uid types.UID))
}

// Replayer finds and deletes the volume of a claim deleted while a
// CreateVolume made for it may still be running. The provisioner fits.
type Replayer interface {
	// PVName is the name of the claim's PV.
	PVName(claim *v1.PersistentVolumeClaim) (string, error)
	// ReplayAndDelete replays the claim's CreateVolume and deletes what it
	// returns; true once no volume for the claim exists or can appear.
	ReplayAndDelete(ctx context.Context, claim *v1.PersistentVolumeClaim) (bool, error)
}

// Options configure the controller.
type Options struct {
	// Client removes the finalizers; the sidecar gives it the protection
	// client, whose rate limit is separate from provisioning's.
	Client         kubernetes.Interface
	ClaimInformer  coreinformers.PersistentVolumeClaimInformer
	VolumeInformer coreinformers.PersistentVolumeInformer
	Calls          CallStates
	Replayer       Replayer
	// ProvisioningProtection is the gate. Off, a provisioning-protection
	// finalizer left from before is removed from every claim whose
	// CreateVolume is not running in this process.
	ProvisioningProtection bool
	// NodeName is this sidecar's node with --node-deployment, else empty.
	// Then only claims provisioned on this node (or on none) are replayed
	// here: another node's driver holds the others' volumes.
	NodeName string
	// Serves tells the claims this sidecar provisions, which HandOff looks
	// at; nil is every claim.
	Serves        func(claim *v1.PersistentVolumeClaim) bool
	EventRecorder record.EventRecorder
	// ClaimUIDIndex names an index of the claim informer by UID that
	// another controller registers first (the provisioning library's,
	// library.ClaimUIDIndex): one index of every claim instead
	// of two. Empty, the controller registers its own.
	ClaimUIDIndex string
	// Metrics receive the controller's metrics; nil keeps a private,
	// unregistered set.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil is the default.
	RateLimiter workqueue.TypedRateLimiter[cache.ObjectName]
	// Processed, if set, is told of every sync (for tests).
	Processed func(key cache.ObjectName, result reconcile.Result, err error)
}

// Event reasons on a claim whose deletion provisioning protection holds.
const (
	ReasonDeletionHeld     = "DeletionHeldForProvisioning"
	ReasonDeletionReleased = "DeletionReleasedByProvisioning"
	// ReasonFinalizerWriteForbidden: RBAC refused a finalizer write; the
	// message names the missing rule.
	ReasonFinalizerWriteForbidden = "FinalizerWriteForbidden"
)

// Controller removes the cloning-protection and provisioning-protection
// finalizers of claims once they protect nothing.
type Controller struct {
	client     kubernetes.Interface
	claims     corelisters.PersistentVolumeClaimLister
	claimIndex cache.Indexer
	volumes    corelisters.PersistentVolumeLister
	synced     []cache.InformerSynced
	calls      CallStates
	replayer   Replayer
	protect    bool
	nodeName   string
	serves     func(claim *v1.PersistentVolumeClaim) bool
	metrics    *Metrics
	holds      *finalizer.Holds[types.UID]
	recorder   record.EventRecorder
	loop       *reconcile.Loop[cache.ObjectName]
	// uidIndex is claimIndex's index by UID.
	uidIndex string

	// released maps claims whose provisioning-protection finalizer this
	// process removed to the claim version it removed it from, until a
	// sync reads a newer version (the write's own, which is queued for
	// that) or the claim is deleted (about 100 bytes a claim).
	releasedMu sync.Mutex
	released   map[types.UID]string
}

// New registers the controller's indexes and event handlers on the
// informers and subscribes to the call tracker; call it before the
// informers start.
func New(opts Options) (*Controller, error) {
	switch {
	case opts.Client == nil || opts.ClaimInformer == nil || opts.VolumeInformer == nil:
		return nil, errors.New("claim protection controller needs a client and claim and volume informers")
	case opts.Calls == nil || opts.Replayer == nil:
		return nil, errors.New("claim protection controller needs the call tracker and the replayer")
	case opts.EventRecorder == nil:
		return nil, errors.New("claim protection controller needs an event recorder")
	}
	m := cmp.Or(opts.Metrics, NewMetrics())
	claimInformer := opts.ClaimInformer.Informer()
	indexers := cache.Indexers{pendingCloneSourceIndex: pendingCloneSourceKeys}
	uidIndex := opts.ClaimUIDIndex
	if uidIndex == "" {
		uidIndex = claimUIDIndex
		indexers[claimUIDIndex] = claimUIDKeys
	} else if _, ok := claimInformer.GetIndexer().GetIndexers()[uidIndex]; !ok {
		return nil, fmt.Errorf("claim protection controller: the claim informer has no index %q", uidIndex)
	}
	if err := claimInformer.AddIndexers(indexers); err != nil {
		return nil, fmt.Errorf("claim protection controller indexes: %w", err)
	}
	volumeInformer := opts.VolumeInformer.Informer()
	c := &Controller{
		client:     opts.Client,
		claims:     opts.ClaimInformer.Lister(),
		claimIndex: claimInformer.GetIndexer(),
		uidIndex:   uidIndex,
		volumes:    opts.VolumeInformer.Lister(),
		synced:     []cache.InformerSynced{claimInformer.HasSynced, volumeInformer.HasSynced},
		calls:      opts.Calls,
		replayer:   opts.Replayer,
		protect:    opts.ProvisioningProtection,
		nodeName:   opts.NodeName,
		serves:     opts.Serves,
		metrics:    m,
		holds: finalizer.NewHolds[types.UID](finalizer.HoldsOptions{
			Gauge: m.HeldClaims, Age: m.OldestHoldAge, Recorder: opts.EventRecorder,
			HeldReason: ReasonDeletionHeld, ReleasedReason: ReasonDeletionReleased,
		}),
		recorder: opts.EventRecorder,
		released: map[types.UID]string{},
	}
	loop, err := reconcile.New(reconcile.Options[cache.ObjectName]{
		Name: "claim-protection",
		// Upstream's cloning protection controller's queue, whose work
		// this controller does (the library's claim queue shares it).
		QueueName:   "claims",
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
		return nil, fmt.Errorf("claim protection controller claim handler: %w", err)
	}
	if _, err := volumeInformer.AddEventHandler(reconcile.Handler(c.onVolume, nil)); err != nil {
		return nil, fmt.Errorf("claim protection controller volume handler: %w", err)
	}
	opts.Calls.Subscribe(c.onCallEnded)
	return c, nil
}

// Run syncs claims with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.loop.Run(ctx, workers, c.synced...)
}

// onClaim queues a claim that carries one of our finalizers or whose release
// a sync has still to forget, and the source of a clone whose state changed,
// since that change may free the source.
func (c *Controller) onClaim(obj interface{}) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	if carriesOurFinalizer(claim) || c.releasePending(claim.UID) {
		c.loop.Add(cache.MetaObjectToName(claim))
	}
	if namespace, name, ok := provisionstate.ClonedClaim(claim); ok {
		c.loop.Add(cache.ObjectName{Namespace: namespace, Name: name})
	}
}

// carriesOurFinalizer tells whether claim has a finalizer this controller
// may remove; a sync of a claim without one does nothing.
func carriesOurFinalizer(claim *v1.PersistentVolumeClaim) bool {
	return finalizer.Has(claim, provisionstate.CloningProtectionFinalizer) || finalizer.Has(claim, provisionstate.ProvisioningProtectionFinalizer)
}

func (c *Controller) onClaimDeleted(obj interface{}) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	c.calls.Forget(claim.UID)
	c.holds.Release(claim.UID, claim.UID, claim, msgReleased, false)
	c.releasedMu.Lock()
	delete(c.released, claim.UID)
	c.releasedMu.Unlock()
	if namespace, name, ok := provisionstate.ClonedClaim(claim); ok {
		c.loop.Add(cache.ObjectName{Namespace: namespace, Name: name})
	}
}

// onVolume queues the claim a new PV is for: its provisioning is over. A
// claim the cache holds without our finalizers has nothing to sync, and is
// left out: so the list and the resyncs of the PVs do not put every bound
// claim through the queue, whose maps keep the room they once needed. Should
// the claim get a finalizer the cache has not seen yet, its own event queues
// it; a claim not cached yet is queued.
func (c *Controller) onVolume(obj interface{}) {
	pv, ok := obj.(*v1.PersistentVolume)
	if !ok || pv.Spec.ClaimRef == nil {
		return
	}
	ref := pv.Spec.ClaimRef
	if claim, err := c.claims.PersistentVolumeClaims(ref.Namespace).Get(ref.Name); err == nil && !carriesOurFinalizer(claim) {
		return
	}
	c.loop.Add(cache.ObjectName{Namespace: ref.Namespace, Name: ref.Name})
}

// onCallEnded queues a claim whose CreateVolume just returned.
func (c *Controller) onCallEnded(uid types.UID) {
	objs, err := c.claimIndex.ByIndex(c.uidIndex, string(uid))
	if err != nil {
		return
	}
	for _, obj := range objs {
		if claim, ok := obj.(*v1.PersistentVolumeClaim); ok {
			c.loop.Add(cache.MetaObjectToName(claim))
		}
	}
}
