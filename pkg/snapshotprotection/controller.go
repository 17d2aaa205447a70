package snapshotprotection

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	snapclient "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	snapinformers "github.com/kubernetes-csi/external-snapshotter/client/v8/informers/externalversions/volumesnapshot/v1"
	snaplisters "github.com/kubernetes-csi/external-snapshotter/client/v8/listers/volumesnapshot/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// Readers tells whether a restore of this process reads a snapshot, and
// when the last one returns. A provisionstate.Readers fits.
type Readers interface {
	Reading(source cache.ObjectName) bool
	Subscribe(fn func(source cache.ObjectName))
}

// Options configure the controller.
type Options struct {
	Client           snapclient.Interface
	SnapshotInformer snapinformers.VolumeSnapshotInformer
	ClaimInformer    coreinformers.PersistentVolumeClaimInformer
	Readers          Readers
	// SweepInterval is how often every cached snapshot is checked again
	// (--snapshot-orphan-sweep-interval); zero sweeps never, events alone
	// then release the finalizers.
	SweepInterval time.Duration
	EventRecorder record.EventRecorder
	// Metrics receive the controller's metrics; nil keeps a private set.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil is the default.
	RateLimiter workqueue.TypedRateLimiter[cache.ObjectName]
	// Processed, if set, is told of every sync (for tests).
	Processed func(key cache.ObjectName, result reconcile.Result, err error)
}

// ReasonFinalizerWriteForbidden is the warning on a snapshot whose
// finalizer RBAC did not let the controller remove.
const ReasonFinalizerWriteForbidden = "FinalizerWriteForbidden"

// Controller releases source-protection finalizers of VolumeSnapshots.
type Controller struct {
	client     snapclient.Interface
	snapshots  snaplisters.VolumeSnapshotLister
	claimIndex cache.Indexer
	synced     []cache.InformerSynced
	readers    Readers
	sweepEvery time.Duration
	recorder   record.EventRecorder
	metrics    *Metrics
	loop       *reconcile.Loop[cache.ObjectName]
}

// New registers the controller's index and handlers on the informers and
// subscribes to the readers; call it before the informers start.
func New(opts Options) (*Controller, error) {
	switch {
	case opts.Client == nil || opts.SnapshotInformer == nil || opts.ClaimInformer == nil:
		return nil, errors.New("snapshot protection controller needs a snapshot client and snapshot and claim informers")
	case opts.Readers == nil:
		return nil, errors.New("snapshot protection controller needs the record of snapshot readers")
	case opts.EventRecorder == nil:
		return nil, errors.New("snapshot protection controller needs an event recorder")
	case opts.SweepInterval < 0:
		return nil, fmt.Errorf("snapshot protection controller: negative sweep interval %s", opts.SweepInterval)
	}
	m := cmp.Or(opts.Metrics, NewMetrics())
	claimInformer := opts.ClaimInformer.Informer()
	if err := claimInformer.AddIndexers(cache.Indexers{pendingRestoreIndex: pendingRestoreKeys}); err != nil {
		return nil, fmt.Errorf("snapshot protection controller index: %w", err)
	}
	snapshotInformer := opts.SnapshotInformer.Informer()
	c := &Controller{
		client:     opts.Client,
		snapshots:  opts.SnapshotInformer.Lister(),
		claimIndex: claimInformer.GetIndexer(),
		synced:     []cache.InformerSynced{claimInformer.HasSynced, snapshotInformer.HasSynced},
		readers:    opts.Readers,
		sweepEvery: opts.SweepInterval,
		recorder:   opts.EventRecorder,
		metrics:    m,
	}
	loop, err := reconcile.New(reconcile.Options[cache.ObjectName]{
		Name:        "snapshot-source-protection",
		Sync:        c.sync,
		LogValues:   reconcile.ObjectNameLogValues("VolumeSnapshot"),
		RateLimiter: opts.RateLimiter,
		Processed:   opts.Processed,
	})
	if err != nil {
		return nil, err
	}
	c.loop = loop
	if _, err := snapshotInformer.AddEventHandler(reconcile.Handler(c.onSnapshot, nil)); err != nil {
		return nil, fmt.Errorf("snapshot protection controller snapshot handler: %w", err)
	}
	if _, err := claimInformer.AddEventHandler(reconcile.Handler(c.onClaim, c.onClaim)); err != nil {
		return nil, fmt.Errorf("snapshot protection controller claim handler: %w", err)
	}
	opts.Readers.Subscribe(c.loop.Add)
	return c, nil
}

// Run syncs snapshots with workers, and sweeps, until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if c.sweepEvery > 0 {
		go func() {
			// The informer's first list queued every snapshot already.
			if !cache.WaitForNamedCacheSyncWithContext(ctx, c.synced...) {
				return
			}
			wait.UntilWithContext(ctx, c.Sweep, c.sweepEvery)
		}()
	}
	c.loop.Run(ctx, workers, c.synced...)
}

// Sweep queues every cached snapshot that carries the finalizer, for the
// orphans no event will bring back: a claim removed while no sidecar ran.
func (c *Controller) Sweep(ctx context.Context) {
	snapshots, err := c.snapshots.List(labels.Everything())
	if err != nil {
		klog.FromContext(ctx).Error(err, "Listing cached VolumeSnapshots for the sweep")
		return
	}
	queued := 0
	for _, snapshot := range snapshots {
		if finalizer.Has(snapshot, provisionstate.SnapshotSourceProtectionFinalizer) {
			c.loop.Add(cache.MetaObjectToName(snapshot))
			queued++
		}
	}
	c.metrics.Sweeps.Inc()
	klog.FromContext(ctx).V(4).Info("Swept VolumeSnapshots for orphaned source-protection finalizers", "snapshots", len(snapshots), "protected", queued)
}

// onSnapshot queues a snapshot that carries the finalizer.
func (c *Controller) onSnapshot(obj interface{}) {
	snapshot, ok := obj.(*snapv1.VolumeSnapshot)
	if ok && finalizer.Has(snapshot, provisionstate.SnapshotSourceProtectionFinalizer) {
		c.loop.Add(cache.MetaObjectToName(snapshot))
	}
}

// onClaim queues the snapshot of a restore claim on every change: one that
// got its volume or went away may leave the snapshot unread, and a sync
// reads only caches, so telling those apart here would save nothing.
func (c *Controller) onClaim(obj interface{}) {
	claim, ok := obj.(*v1.PersistentVolumeClaim)
	if !ok {
		return
	}
	if source, ok := restoredSnapshot(claim); ok {
		c.loop.Add(source)
	}
}
