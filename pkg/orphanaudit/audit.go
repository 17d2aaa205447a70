package orphanaudit

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
)

// listPageSize bounds one ListVolumes answer.
const listPageSize = 500

// sync lists the driver's volumes, then reads the caches: a PV stored
// after the list is in the cache by then or within the grace period, so a
// new volume is never reported.
func (c *Controller) sync(ctx context.Context, _ string) (reconcile.Result, error) {
	logger := klog.FromContext(ctx)
	volumes, err := c.listVolumes(ctx)
	if err != nil {
		c.metrics.Audits.WithLabelValues("error").Inc()
		return reconcile.Done, err
	}
	accounted, err := c.accounted()
	if err != nil {
		c.metrics.Audits.WithLabelValues("error").Inc()
		return reconcile.Done, err
	}
	now := c.clock.Now()
	listed := make(map[string]bool, len(volumes))
	orphaned := 0
	for _, v := range volumes {
		handle := v.GetVolumeId()
		listed[handle] = true
		if accounted[handle] {
			if c.reported[handle] {
				logger.Info("A volume reported as orphaned is now accounted for", "handle", handle)
			}
			delete(c.unaccounted, handle)
			delete(c.reported, handle)
			continue
		}
		since, seen := c.unaccounted[handle]
		if !seen {
			c.unaccounted[handle] = now
			since = now
		}
		if now.Sub(since) < c.opts.GracePeriod {
			continue
		}
		orphaned++
		if !c.reported[handle] {
			c.reported[handle] = true
			keysAndValues := []any{"handle", handle, "capacityBytes", v.GetCapacityBytes(), "unaccountedFor", now.Sub(since).Round(time.Second)}
			if claim := c.namedAfter(handle); claim != nil {
				keysAndValues = append(keysAndValues, "namedForPVC", klog.KObj(claim))
			}
			logger.Info("Orphaned volume: the driver lists it, and no PersistentVolume or claim has accounted for it; it is not deleted", keysAndValues...)
		}
	}
	for handle := range c.unaccounted {
		if !listed[handle] {
			delete(c.unaccounted, handle)
			delete(c.reported, handle)
		}
	}
	c.metrics.OrphanedVolumes.Set(float64(orphaned))
	c.metrics.Audits.WithLabelValues("success").Inc()
	logger.V(4).Info("Audit done", "volumes", len(volumes), "orphaned", orphaned, "pending", len(c.unaccounted)-orphaned)
	return reconcile.RequeueAfter(c.opts.Interval), nil
}

// listVolumes pages through ListVolumes.
func (c *Controller) listVolumes(ctx context.Context) ([]*csi.Volume, error) {
	var volumes []*csi.Volume
	token := ""
	for {
		callCtx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
		resp, err := c.opts.CSIClient.ListVolumes(callCtx, &csi.ListVolumesRequest{MaxEntries: listPageSize, StartingToken: token})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("ListVolumes: %w", err)
		}
		for _, e := range resp.GetEntries() {
			if e.GetVolume().GetVolumeId() != "" {
				volumes = append(volumes, e.GetVolume())
			}
		}
		if token = resp.GetNextToken(); token == "" {
			return volumes, nil
		}
	}
}

// accounted is every handle a PV or a claim being cleaned up names.
func (c *Controller) accounted() (map[string]bool, error) {
	pvs, err := c.opts.VolumeLister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	claims, err := c.opts.ClaimLister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	handles := make(map[string]bool, len(pvs))
	for _, pv := range pvs {
		if h := c.opts.VolumeHandle(pv); h != "" {
			handles[h] = true
		}
	}
	for _, claim := range claims {
		if h := claim.Annotations[c.opts.AbandonedVolumeAnnotation]; h != "" {
			handles[h] = true
		}
	}
	return handles, nil
}

// namedAfter returns the unbound claim whose volume name the handle holds,
// nil when none does: many drivers make the handle from the name, and
// then the report says whose the volume is.
func (c *Controller) namedAfter(handle string) *v1.PersistentVolumeClaim {
	if c.opts.DriverVolumeName == nil {
		return nil
	}
	claims, err := c.opts.ClaimLister.List(labels.Everything())
	if err != nil {
		return nil
	}
	for _, claim := range claims {
		if claim.Status.Phase == v1.ClaimBound {
			continue
		}
		if name, err := c.opts.DriverVolumeName(claim); err == nil && name != "" && strings.Contains(handle, name) {
			return claim
		}
	}
	return nil
}
