package recyclebin

import (
	"cmp"
	"context"
	"errors"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
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
)

// Options configure the controller.
type Options struct {
	Client         kubernetes.Interface
	VolumeInformer coreinformers.PersistentVolumeInformer
	ClaimInformer  coreinformers.PersistentVolumeClaimInformer
	Bin            *Bin
	Fit            FitOptions
	// HandOver gives a PV whose volume may now be deleted to the
	// provisioning library, which deletes it through the normal path.
	HandOver func(pv *v1.PersistentVolume)
	// DeleteVolume deletes the volume of a kept PV that is being deleted,
	// through the provisioner's deletion path (secrets, attachment check);
	// the library leaves such a PV alone, since it says Retain or lacks the
	// library's finalizer.
	DeleteVolume func(ctx context.Context, pv *v1.PersistentVolume) error
	// LibraryFinalizer is the provisioning library's PV finalizer when the
	// library keeps one ("" when it does not): the library removes it
	// while a kept PV says Retain, and the bin gives it back with the
	// reclaim policy.
	LibraryFinalizer string
	// Owns tells whether this sidecar deletes pv's volume; with
	// --node-deployment only one node's does, and only it keeps, expires
	// and gives back the volume. Nil owns every volume.
	Owns          func(pv *v1.PersistentVolume) (bool, error)
	EventRecorder record.EventRecorder
	// Metrics nil keeps a private, unregistered set.
	Metrics     *Metrics
	Clock       clock.PassiveClock
	RateLimiter workqueue.TypedRateLimiter[string]
	// Processed, if set, is told of every sync of a PV (for tests).
	Processed func(name string, result reconcile.Result, err error)
}

// Controller records the deadline on the PVs the bin keeps, requeues them
// at it, hands expired and purged ones to deletion, and gives a volume back
// to the claim a restore request names. Its keys are PV names.
type Controller struct {
	client   kubernetes.Interface
	volumes  corelisters.PersistentVolumeLister
	claims   corelisters.PersistentVolumeClaimLister
	synced   []cache.InformerSynced
	bin      *Bin
	fit      FitOptions
	handOver func(pv *v1.PersistentVolume)
	// deleteVolume and libraryFinalizer are Options'.
	deleteVolume     func(ctx context.Context, pv *v1.PersistentVolume) error
	libraryFinalizer string
	volumeWriter     finalizer.Target
	owns             func(pv *v1.PersistentVolume) (bool, error)
	recorder         record.EventRecorder
	metrics          *Metrics
	clock            clock.PassiveClock
	loop             *reconcile.Loop[string]

	mu sync.Mutex
	// retained are the PVs kept now, by name, with their capacity in
	// bytes, for the gauges.
	retained map[string]int64
	// handedOver are the PVs already given to deletion by this process, so
	// that its event and counter come once.
	handedOver map[types.UID]bool
	// held are the PVs whose deletion the bin held back in this process:
	// when the hold ends without an expiry (a rebinding that did not
	// happen), the library is told again, since it dropped them.
	held map[types.UID]bool
	// deletedVolumes are the kept PVs being deleted whose volume this
	// process deleted, until the PV is gone: a release that conflicts is
	// made again without a second DeleteVolume.
	deletedVolumes map[types.UID]bool
}

// New checks opts and registers the event handlers; call it before the
// informers start.
func New(opts Options) (*Controller, error) {
	switch {
	case opts.Client == nil, opts.VolumeInformer == nil, opts.ClaimInformer == nil, opts.Bin == nil, opts.HandOver == nil, opts.DeleteVolume == nil, opts.EventRecorder == nil:
		return nil, errors.New("recycle bin controller needs a client, PV and claim informers, a bin, a hand-over, a volume deletion and an event recorder")
	case opts.Fit.Driver == "":
		return nil, errors.New("recycle bin controller needs the driver name")
	}
	m := cmp.Or(opts.Metrics, NewMetrics())
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	volumes, claims := opts.VolumeInformer.Informer(), opts.ClaimInformer.Informer()
	c := &Controller{
		client: opts.Client, volumes: opts.VolumeInformer.Lister(), claims: opts.ClaimInformer.Lister(),
		synced: []cache.InformerSynced{volumes.HasSynced, claims.HasSynced},
		bin:    opts.Bin, fit: opts.Fit, handOver: opts.HandOver, owns: opts.Owns, recorder: opts.EventRecorder,
		deleteVolume: opts.DeleteVolume, libraryFinalizer: opts.LibraryFinalizer, volumeWriter: finalizer.PersistentVolumes(opts.Client),
		metrics: m, clock: clk,
		retained: map[string]int64{}, handedOver: map[types.UID]bool{}, held: map[types.UID]bool{}, deletedVolumes: map[types.UID]bool{},
	}
	loop, err := reconcile.New(reconcile.Options[string]{
		Name: "recycle-bin",
		// The library's name for its PV queue: the bin decides a part of
		// that work, and the queues a user sees stay upstream's.
		QueueName:   "volumes",
		Sync:        c.sync,
		LogValues:   func(name string) []any { return []any{"PV", klog.KRef("", name)} },
		RateLimiter: opts.RateLimiter,
		Processed:   opts.Processed,
	})
	if err != nil {
		return nil, err
	}
	c.loop = loop
	if _, err := volumes.AddEventHandler(reconcile.Handler(c.onVolume, c.onVolumeDeleted)); err != nil {
		return nil, err
	}
	if _, err := claims.AddEventHandler(reconcile.Handler(c.onClaim, c.onClaimDeleted)); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the caches, then syncs PVs until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.loop.Run(ctx, workers, c.synced...)
}

func (c *Controller) onVolume(obj interface{}) {
	if pv, ok := obj.(*v1.PersistentVolume); ok && c.inScope(pv) && c.concerns(pv) {
		c.loop.Add(pv.Name)
	}
}

func (c *Controller) onVolumeDeleted(obj interface{}) {
	if pv, ok := obj.(*v1.PersistentVolume); ok {
		c.forget(pv)
	}
}

// onClaim syncs the PV a claim names, so that a restore request made
// before its claim existed is answered when the claim appears.
func (c *Controller) onClaim(obj interface{}) {
	if claim, ok := obj.(*v1.PersistentVolumeClaim); ok && claim.Spec.VolumeName != "" && claim.Status.Phase != v1.ClaimBound {
		c.loop.Add(claim.Spec.VolumeName)
	}
}

// onClaimDeleted syncs the PV the claim was bound to: a PV held while the
// cache still showed its claim is decided again once the claim is gone.
func (c *Controller) onClaimDeleted(obj interface{}) {
	if claim, ok := obj.(*v1.PersistentVolumeClaim); ok && claim.Spec.VolumeName != "" {
		c.loop.Add(claim.Spec.VolumeName)
	}
}

// inScope: the PVs this driver deletes, its own and those the in-tree
// plugin it replaces provisioned.
func (c *Controller) inScope(pv *v1.PersistentVolume) bool {
	return c.fit.driver().DeletesVolume(pv)
}

// concerns: a released PV the bin may keep, or one that carries the bin's
// metadata or protection.
func (c *Controller) concerns(pv *v1.PersistentVolume) bool {
	if releasedWithDelete(pv) || carriesProtection(pv) {
		return true
	}
	_, recorded := pv.Annotations[AnnRetainedUntil]
	_, restore := pv.Annotations[AnnRestoreTo]
	return recorded || restore
}
