package recyclebin

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
)

func (c *Controller) sync(ctx context.Context, name string) (reconcile.Result, error) {
	pv, err := c.volumes.Get(name)
	if apierrors.IsNotFound(err) {
		c.forgetName(name)
		return reconcile.Done, nil
	}
	if err != nil {
		return reconcile.Done, err
	}
	if !c.inScope(pv) {
		return reconcile.Done, nil
	}
	if c.owns != nil {
		if owned, err := c.owns(pv); err != nil || !owned {
			return reconcile.Done, err
		}
	}
	d, err := c.bin.Decide(pv)
	if err != nil {
		c.recorder.Event(pv, v1.EventTypeWarning, ReasonRetentionBroken, "The volume is kept: "+err.Error())
		return reconcile.Done, nil
	}
	now := c.clock.Now()
	wasHeld := c.setHeld(pv, d.State.Holds())
	switch d.State {
	case Retain:
		if err := c.record(ctx, pv, d.Until); err != nil {
			return reconcile.Done, err
		}
		c.setRetained(pv, true)
		return reconcile.RequeueAfter(d.Until.Sub(now)), nil
	case Keep:
		c.setRetained(pv, true)
		// Only a kept volume is given back: an expired or purged one may
		// be being deleted, and one not recorded yet is recorded first.
		if target, asked, err := RestoreRequest(pv); asked {
			restored, err := c.restore(ctx, pv, target, err)
			if restored || err != nil {
				return reconcile.Done, err
			}
		}
		return reconcile.RequeueAfter(d.Until.Sub(now)), nil
	case Expired, Purge:
		c.setRetained(pv, false)
		if _, recorded := pv.Annotations[AnnRetainedUntil]; recorded && c.firstHandOver(pv) {
			if d.State == Expired {
				c.metrics.Expiries.Inc()
				c.recorder.Eventf(pv, v1.EventTypeNormal, ReasonExpired, "Retention ended at %s: deleting the volume", d.Until.Format(time.RFC3339))
			} else {
				c.metrics.Purges.Inc()
				c.recorder.Event(pv, v1.EventTypeNormal, ReasonPurged, "Purge requested: deleting the volume before its deadline")
			}
		}
		// The library deletes it now, as it deletes any released volume;
		// on a restart its own resync would too, only later. Handing it
		// over again on a later sync is one more look at a PV the library
		// is deleting, nothing more.
		c.handOver(pv)
	default: // Delete, Rebinding
		c.setRetained(pv, false)
		if wasHeld && d.State == Delete {
			c.handOver(pv)
		}
	}
	return reconcile.Done, nil
}

// setHeld records whether the bin holds pv now, and says whether it held it
// before.
func (c *Controller) setHeld(pv *v1.PersistentVolume, held bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	before := c.held[pv.UID]
	if held {
		c.held[pv.UID] = true
	} else {
		delete(c.held, pv.UID)
	}
	return before
}

// record writes the deadline, the claim it came from and the label in one
// patch pinned to the PV's version: a PV that changed since is decided
// again from the fresher copy.
func (c *Controller) record(ctx context.Context, pv *v1.PersistentVolume, until time.Time) error {
	annotations, labels := Record(pv, until)
	if err := c.patchPinned(ctx, pv, map[string]any{"annotations": annotations, "labels": labels}, nil); err != nil {
		return fmt.Errorf("recording the retention of PersistentVolume %s: %w", pv.Name, err)
	}
	retention := until.Sub(c.clock.Now()).Round(time.Second)
	klog.FromContext(ctx).Info("Volume retained", "until", until, "from", annotations[AnnRetainedFrom])
	c.recorder.Eventf(pv, v1.EventTypeNormal, ReasonRetained,
		"Volume kept until %s (%s) instead of deleted; give it back with the annotation %s, or purge it with %s=true",
		until.Format(time.RFC3339), retention, AnnRestoreTo, AnnPurge)
	return nil
}

// restore gives the kept pv to the claim a user named, if it fits, and
// reports whether it did; otherwise it says why on both objects and changes
// nothing.
func (c *Controller) restore(ctx context.Context, pv *v1.PersistentVolume, target cache.ObjectName, requestErr error) (bool, error) {
	if requestErr != nil {
		c.recorder.Event(pv, v1.EventTypeWarning, ReasonRestoreRefused, requestErr.Error())
		return false, nil
	}
	claim, err := c.claims.PersistentVolumeClaims(target.Namespace).Get(target.Name)
	if apierrors.IsNotFound(err) {
		// The claim's creation brings the PV back (onClaim).
		c.recorder.Eventf(pv, v1.EventTypeWarning, ReasonRestoreRefused, "Claim %s does not exist (yet)", target)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := Fits(pv, claim, c.fit); err != nil {
		msg := fmt.Sprintf("Volume %s cannot be given to claim %s: %v", pv.Name, target, err)
		c.recorder.Event(pv, v1.EventTypeWarning, ReasonRestoreRefused, msg)
		c.recorder.Event(claim, v1.EventTypeWarning, ReasonRestoreRefused, msg)
		return false, nil
	}
	if err := c.giveBack(ctx, pv, claim); err != nil {
		return false, err
	}
	c.setRetained(pv, false)
	c.metrics.Restores.Inc()
	klog.FromContext(ctx).Info("Volume given back", "claim", klog.KObj(claim))
	msg := fmt.Sprintf("Volume %s given back to claim %s", pv.Name, target)
	c.recorder.Event(pv, v1.EventTypeNormal, ReasonRestored, msg)
	c.recorder.Event(claim, v1.EventTypeNormal, ReasonRestored, msg)
	return true, nil
}

// giveBack points the PV's claimRef at claim, clears the bin's metadata and
// says to which claim it was given, in one patch pinned to the PV's
// version; kube-controller-manager then binds the two.
func (c *Controller) giveBack(ctx context.Context, pv *v1.PersistentVolume, claim *v1.PersistentVolumeClaim) error {
	annotations, labels := Recorded()
	setAnnotations := nulls(annotations)
	setAnnotations[AnnRestoredTo] = claimID(claim.Namespace, claim.Name, claim.UID)
	spec := map[string]any{"claimRef": map[string]any{
		"kind": "PersistentVolumeClaim", "apiVersion": "v1",
		"namespace": claim.Namespace, "name": claim.Name, "uid": claim.UID,
		"resourceVersion": nil, "fieldPath": nil,
	}}
	if err := c.patchPinned(ctx, pv, map[string]any{"annotations": setAnnotations, "labels": nulls(labels)}, spec); err != nil {
		return fmt.Errorf("giving PersistentVolume %s to claim %s: %w", pv.Name, klog.KObj(claim), err)
	}
	return nil
}

// patchPinned sends one merge patch of pv's metadata (and spec, if set),
// pinned to the version and UID it was decided on: a PV that changed since
// answers 409, and is decided again from the fresher copy. A merge patch
// touches only the keys it names, so the cache's trimmed copy is never
// written back.
func (c *Controller) patchPinned(ctx context.Context, pv *v1.PersistentVolume, metadata, spec map[string]any) error {
	metadata["resourceVersion"] = pv.ResourceVersion
	metadata["uid"] = pv.UID
	body := map[string]any{"metadata": metadata}
	if spec != nil {
		body["spec"] = spec
	}
	patch, err := json.Marshal(body)
	if err != nil {
		return err
	}
	_, err = c.client.CoreV1().PersistentVolumes().Patch(ctx, pv.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// nulls is a merge patch's removal of keys.
func nulls(keys []string) map[string]any {
	m := make(map[string]any, len(keys))
	for _, k := range keys {
		m[k] = nil
	}
	return m
}

func (c *Controller) firstHandOver(pv *v1.PersistentVolume) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handedOver[pv.UID] {
		return false
	}
	c.handedOver[pv.UID] = true
	return true
}

func (c *Controller) setRetained(pv *v1.PersistentVolume, retained bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if retained {
		size := pv.Spec.Capacity[v1.ResourceStorage]
		c.retained[pv.Name] = size.Value()
	} else {
		delete(c.retained, pv.Name)
	}
	c.setGaugesLocked()
}

func (c *Controller) forget(pv *v1.PersistentVolume) {
	c.forgetName(pv.Name)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.handedOver, pv.UID)
	delete(c.held, pv.UID)
}

func (c *Controller) forgetName(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.retained, name)
	c.setGaugesLocked()
}

func (c *Controller) setGaugesLocked() {
	var bytes int64
	for _, b := range c.retained {
		bytes += b
	}
	c.metrics.RetainedVolumes.Set(float64(len(c.retained)))
	c.metrics.RetainedBytes.Set(float64(bytes))
}
