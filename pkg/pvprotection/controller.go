package pvprotection

import (
	"cmp"
	"context"
	"errors"

	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
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
	// InTreePlugin, the in-tree plugin the driver replaces (CSI
	// migration), puts that plugin's PVs in scope too; "" for none.
	InTreePlugin string
	// AllVolumes makes every PV in scope, whatever its driver.
	AllVolumes bool
	// EventRecorder receives the hold and release events. Required.
	EventRecorder record.EventRecorder
	// Metrics receive the controller's metrics; nil keeps a private,
	// unregistered set.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil is the reconcile
	// loop's default.
	RateLimiter workqueue.TypedRateLimiter[string]
	// Processed, if set, is told of every sync of a PV (for tests).
	Processed func(name string, result reconcile.Result, err error)
}

// Controller adds the pv-protection finalizer to the PVs in its scope and
// removes it from those being deleted once no claim is bound to them. Its
// keys are PV names.
type Controller struct {
	client  kubernetes.Interface
	target  finalizer.Target
	volumes corelisters.PersistentVolumeLister
	synced  cache.InformerSynced
	// driver: see Options.DriverName and InTreePlugin.
	driver     driverscope.Driver
	allVolumes bool
	metrics    *Metrics
	// holds are the PVs reported as held, with the claim that holds them,
	// so a hold is announced once and its end is announced at all.
	holds *finalizer.Holds[string]
	loop  *reconcile.Loop[string]
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
	case opts.EventRecorder == nil:
		return nil, errors.New("pv protection controller needs an event recorder")
	}
	m := cmp.Or(opts.Metrics, NewMetrics())
	informer := opts.VolumeInformer.Informer()
	c := &Controller{
		client:     opts.Client,
		target:     finalizer.PersistentVolumes(opts.Client),
		volumes:    opts.VolumeInformer.Lister(),
		synced:     informer.HasSynced,
		driver:     driverscope.Driver{Name: opts.DriverName, InTreePlugin: opts.InTreePlugin},
		allVolumes: opts.AllVolumes,
		metrics:    m,
		holds: finalizer.NewHolds[string](finalizer.HoldsOptions{
			Gauge: m.HeldVolumes, Age: m.OldestHoldAge, Recorder: opts.EventRecorder,
			HeldReason: ReasonDeletionHeld, ReleasedReason: ReasonDeletionReleased,
		}),
	}
	loop, err := reconcile.New(reconcile.Options[string]{
		Name:        "pv-protection",
		Sync:        c.sync,
		LogValues:   func(name string) []any { return []any{"PV", klog.KRef("", name)} },
		RateLimiter: opts.RateLimiter,
		Processed:   opts.Processed,
	})
	if err != nil {
		return nil, err
	}
	c.loop = loop
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onAdd,
		UpdateFunc: c.onUpdate,
		DeleteFunc: c.onDelete,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the informer cache, then syncs PVs with workers until ctx
// ends. It shuts the queue down and waits for the workers before it returns.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.loop.Run(ctx, workers, c.synced)
}
