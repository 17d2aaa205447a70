package orphanaudit

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
)

// Options configure the audit.
type Options struct {
	// CSIClient lists the driver's volumes; the driver must report
	// LIST_VOLUMES.
	CSIClient csi.ControllerClient
	// Timeout bounds each ListVolumes call (--timeout).
	Timeout time.Duration
	// VolumeLister and VolumeSynced are the PV cache.
	VolumeLister corelisters.PersistentVolumeLister
	VolumeSynced cache.InformerSynced
	// ClaimLister and ClaimSynced are the claim cache, for the volumes of
	// claims deleted during provisioning (AbandonedVolumeAnnotation).
	ClaimLister corelisters.PersistentVolumeClaimLister
	ClaimSynced cache.InformerSynced
	// VolumeHandle returns the driver's handle of a PV, "" for a PV of
	// another driver (an in-tree PV of a migrated plugin has one too).
	VolumeHandle func(*v1.PersistentVolume) string
	// DriverVolumeName, if set, names a claim's volume as CreateVolume
	// names it for the driver; a report of a volume whose handle holds the
	// name of an unbound claim's volume names the claim.
	DriverVolumeName func(*v1.PersistentVolumeClaim) (string, error)
	// AbandonedVolumeAnnotation is the claim annotation that records the
	// handle of a volume being deleted for a claim deleted during
	// provisioning.
	AbandonedVolumeAnnotation string
	// Interval is the time between audits; GracePeriod how long a volume
	// must stay unaccounted for before it is reported, long enough for a
	// new volume's PV to be stored.
	Interval    time.Duration
	GracePeriod time.Duration
	// Clock defaults to the real one.
	Clock clock.PassiveClock
	// Metrics; nil keeps a private, unregistered set.
	Metrics *Metrics
	// Processed, if set, is told of every audit (for tests).
	Processed func(result reconcile.Result, err error)
}

// auditKey is the only key: the audit is one sync of the whole driver.
const auditKey = "volumes"

// Controller runs the audit every Interval on the one shared scaffold: one
// key, requeued after each sync.
type Controller struct {
	opts    Options
	clock   clock.PassiveClock
	metrics *Metrics
	// unaccounted is when each unaccounted volume was first found so;
	// reported holds those already logged. Only the one worker reads them.
	unaccounted map[string]time.Time
	reported    map[string]bool
	loop        *reconcile.Loop[string]
}

// New checks opts.
func New(opts Options) (*Controller, error) {
	switch {
	case opts.CSIClient == nil:
		return nil, errors.New("orphan audit needs a CSI client")
	case opts.VolumeLister == nil || opts.ClaimLister == nil:
		return nil, errors.New("orphan audit needs PV and claim listers")
	case opts.VolumeHandle == nil:
		return nil, errors.New("orphan audit needs a VolumeHandle function")
	case opts.Interval <= 0:
		return nil, errors.New("orphan audit needs a positive interval")
	case opts.GracePeriod < 0:
		return nil, errors.New("orphan audit needs a grace period of zero or more")
	}
	c := &Controller{
		opts:        opts,
		clock:       opts.Clock,
		metrics:     cmp.Or(opts.Metrics, NewMetrics()),
		unaccounted: map[string]time.Time{},
		reported:    map[string]bool{},
	}
	if c.clock == nil {
		c.clock = clock.RealClock{}
	}
	loop, err := reconcile.New(reconcile.Options[string]{
		Name: "orphan-audit",
		Sync: c.sync,
		Processed: func(_ string, result reconcile.Result, err error) {
			if opts.Processed != nil {
				opts.Processed(result, err)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	c.loop = loop
	loop.Add(auditKey)
	return c, nil
}

// Run audits until ctx ends; one worker, as the audit is one key.
func (c *Controller) Run(ctx context.Context) {
	var synced []cache.InformerSynced
	for _, s := range []cache.InformerSynced{c.opts.VolumeSynced, c.opts.ClaimSynced} {
		if s != nil {
			synced = append(synced, s)
		}
	}
	c.loop.Run(ctx, 1, synced...)
}
