package cleanup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned"
	"github.com/csi-protect/external-provisioner/pkg/generated/informers/externalversions"
)

// DefaultNodeGoneGrace is how long a node must be missing, or not selected,
// before its PVs are let go without their node agent.
const DefaultNodeGoneGrace = 5 * time.Minute

// ownResync is the resync period of the informers the controller makes for
// itself. A resync only re-enqueues objects whose finalizer or device count
// is not at rest, so it is a cheap safety net behind the PV and Node events.
const ownResync = 10 * time.Minute

// loopName names the controller's queue, logger and log lines.
const loopName = "local-volume-cleanup"

// Options configure the controller.
type Options struct {
	// Client reads, deletes and patches PersistentVolumes.
	Client kubernetes.Interface
	// LocalClient patches the finalizer and status of LocalVolumes and
	// LocalVolumeSets, and feeds their informers when LocalInformers is
	// nil.
	LocalClient versioned.Interface
	// LocalInformers gives the informers of LocalVolumes and
	// LocalVolumeSets; the caller starts it after New. Nil makes the
	// controller watch them itself over LocalClient, in all namespaces,
	// with informers that Run starts and stops.
	LocalInformers externalversions.SharedInformerFactory
	// VolumeInformer and NodeInformer are the shared PV and Node
	// informers; the caller starts them after New. Required when Enabled,
	// unused (and never instantiated) otherwise.
	VolumeInformer coreinformers.PersistentVolumeInformer
	NodeInformer   coreinformers.NodeInformer
	// Enabled is the LocalVolumeCleanup feature gate. Off, the controller
	// only removes the finalizer from the LocalVolumes and LocalVolumeSets
	// it marked as its own, so turning the gate off never leaves one stuck.
	Enabled bool
	// EventRecorder receives the events, recorded on object references to
	// the LocalVolumes and LocalVolumeSets, so its scheme need not know
	// them. Required.
	EventRecorder record.EventRecorder
	// Metrics receive the controller's metrics; nil keeps a private,
	// unregistered set.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil is the reconcile
	// loop's default.
	RateLimiter workqueue.TypedRateLimiter[OwnerKey]
	// Processed, if set, is told of every sync of an owner (for tests).
	Processed func(key OwnerKey, result reconcile.Result, err error)
	// Clock measures how long a node has been gone; nil is the real clock.
	Clock clock.Clock
	// NodeGoneGrace is how long a node must be missing, or no longer
	// selected, before the PVs on it are let go; 0 is
	// DefaultNodeGoneGrace.
	NodeGoneGrace time.Duration
}

// Controller keeps the local-volume-protection finalizer on LocalVolumes
// and LocalVolumeSets and, when one is deleted, gets its PVs deleted before
// it lets the finalizer go. See docs/local-volumes.md for the rules.
type Controller struct {
	client        kubernetes.Interface
	volumeTarget  finalizer.Target
	enabled       bool
	recorder      record.EventRecorder
	metrics       *Metrics
	clock         clock.Clock
	nodeGoneGrace time.Duration
	loop          *reconcile.Loop[OwnerKey]

	kinds map[string]*kind
	// own is the informer factory the controller made for itself, when
	// Options.LocalInformers was nil; Run starts and stops it.
	own externalversions.SharedInformerFactory

	// Set only when enabled.
	volumes     corelisters.PersistentVolumeLister
	volumeIndex cache.Indexer
	volumesSync cache.InformerSynced
	nodeIndex   cache.Indexer
	nodesSynced cache.InformerSynced

	mu sync.Mutex
	// blocked is what was announced of each owner whose deletion is
	// blocked.
	blocked map[OwnerKey]blockedOwner
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
	case opts.LocalClient == nil:
		return nil, errors.New("local volume cleanup controller needs a LocalVolume client")
	case opts.EventRecorder == nil:
		return nil, errors.New("local volume cleanup controller needs an event recorder")
	case opts.Enabled && opts.VolumeInformer == nil:
		return nil, errors.New("local volume cleanup controller needs a PersistentVolume informer")
	case opts.Enabled && opts.NodeInformer == nil:
		return nil, errors.New("local volume cleanup controller needs a Node informer")
	case opts.NodeGoneGrace < 0:
		return nil, fmt.Errorf("local volume cleanup controller: negative NodeGoneGrace %v", opts.NodeGoneGrace)
	}
	m := cmp.Or(opts.Metrics, NewMetrics())
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
		volumeTarget:  finalizer.PersistentVolumes(opts.Client),
		enabled:       opts.Enabled,
		recorder:      opts.EventRecorder,
		metrics:       m,
		clock:         clk,
		nodeGoneGrace: grace,
		blocked:       map[OwnerKey]blockedOwner{},
		unreachable:   map[unreachableKey]time.Time{},
	}
	loop, err := reconcile.New(reconcile.Options[OwnerKey]{
		Name:        loopName,
		Sync:        c.sync,
		LogValues:   func(key OwnerKey) []any { return []any{key.Kind, klog.KRef(key.Namespace, key.Name)} },
		RateLimiter: opts.RateLimiter,
		Processed:   opts.Processed,
	})
	if err != nil {
		return nil, err
	}
	c.loop = loop

	factory := opts.LocalInformers
	if factory == nil {
		c.own = externalversions.NewSharedInformerFactory(opts.LocalClient, ownResync)
		factory = c.own
	}
	c.kinds = ownerKinds(opts.LocalClient, factory)
	for _, k := range c.kinds {
		if _, err := k.informer.AddEventHandler(c.ownerHandler()); err != nil {
			return nil, err
		}
	}
	if !opts.Enabled {
		return c, nil
	}
	if err := c.watchVolumesAndNodes(opts.VolumeInformer, opts.NodeInformer); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the informer caches, then runs workers until ctx ends. It
// starts the LocalVolume informers if it made them itself. It shuts the
// queue down and waits for the workers (and its own informers) before it
// returns.
func (c *Controller) Run(ctx context.Context, workers int) {
	klog.FromContext(ctx).WithName(loopName).Info("Local volume cleanup", "enabled", c.enabled, "nodeGoneGrace", c.nodeGoneGrace)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.own != nil {
		c.own.Start(ctx.Done())
		// Shutdown waits for the informers, which stop with ctx.
		defer func() { cancel(); c.own.Shutdown() }()
	}
	c.loop.Run(ctx, workers, c.cachesSynced()...)
}

// cachesSynced lists the caches the workers need.
func (c *Controller) cachesSynced() []cache.InformerSynced {
	var synced []cache.InformerSynced
	for _, k := range c.kinds {
		synced = append(synced, k.informer.HasSynced)
	}
	if c.enabled {
		synced = append(synced, c.volumesSync, c.nodesSynced)
	}
	return synced
}
