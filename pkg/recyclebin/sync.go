package recyclebin

import (
	"context"
	"fmt"
	"maps"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
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
		if !protected(pv) {
			// Kept before the bin protected what it keeps, or a user took
			// the protection off: the write's update brings the PV back.
			return reconcile.Done, c.protect(ctx, pv)
		}
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
		c.tellHandOver(pv, d)
		if pv.DeletionTimestamp != nil && finalizer.Has(pv, FinalizerKept) {
			return reconcile.Done, c.purgeDeleted(ctx, pv)
		}
		if carriesProtection(pv) {
			// The library deletes it once it says Delete again: the
			// write's update event brings it to the library.
			return reconcile.Done, c.giveBackPolicy(ctx, pv)
		}
		// The library deletes it now, as it deletes any released volume;
		// on a restart its own resync would too, only later. Handing it
		// over again on a later sync is one more look at a PV the library
		// is deleting, nothing more.
		c.handOver(pv)
	case Rebinding:
		c.setRetained(pv, false)
	default: // Delete
		c.setRetained(pv, false)
		if carriesProtection(pv) {
			// Given back and bound, or no longer the bin's: what it asks
			// for is its recorded policy again.
			return reconcile.Done, c.giveBackPolicy(ctx, pv)
		}
		if wasHeld {
			c.handOver(pv)
		}
	}
	return reconcile.Done, nil
}

// tellHandOver posts the event and counts the expiry or purge of a kept
// volume, once per volume in this process. A restore request the volume
// still carries is refused then, on the PV and on the claim it names: the
// volume is being deleted.
func (c *Controller) tellHandOver(pv *v1.PersistentVolume, d Decision) {
	if _, recorded := pv.Annotations[AnnRetainedUntil]; !recorded || !c.firstHandOver(pv) {
		return
	}
	why := "a purge was requested"
	if d.State == Expired {
		why = "its retention ended at " + d.Until.Format(time.RFC3339)
		c.metrics.Expiries.Inc()
		c.recorder.Eventf(pv, v1.EventTypeNormal, ReasonExpired, "Retention ended at %s: deleting the volume", d.Until.Format(time.RFC3339))
	} else {
		c.metrics.Purges.Inc()
		c.recorder.Event(pv, v1.EventTypeNormal, ReasonPurged, "Purge requested: deleting the volume before its deadline")
	}
	target, asked, err := RestoreRequest(pv)
	if !asked {
		return
	}
	msg := fmt.Sprintf("Volume %s is not given back: it is being deleted, since %s", pv.Name, why)
	c.recorder.Event(pv, v1.EventTypeWarning, ReasonRestoreRefused, msg)
	if err != nil {
		return
	}
	if claim, err := c.claims.PersistentVolumeClaims(target.Namespace).Get(target.Name); err == nil {
		c.recorder.Event(claim, v1.EventTypeWarning, ReasonRestoreRefused, msg)
	}
}

// purgeDeleted deletes the volume of a kept PV that is being deleted, which
// the library leaves alone (it has no finalizer of the library's, or says
// Retain), and then lets the PV go. A restart between the two calls
// DeleteVolume again, which the driver answers as done.
func (c *Controller) purgeDeleted(ctx context.Context, pv *v1.PersistentVolume) error {
	if !c.volumeDeleted(pv) {
		if err := c.deleteVolume(ctx, pv); err != nil {
			return fmt.Errorf("deleting the volume of PersistentVolume %s, which is being deleted: %w", pv.Name, err)
		}
		c.setVolumeDeleted(pv)
		klog.FromContext(ctx).Info("Volume of a kept PV being deleted deleted", "handle", volumeHandle(pv))
	}
	// A release that conflicts (kube-controller-manager's PV protection
	// lets the PV go meanwhile) is made again on the fresher copy, without
	// a second DeleteVolume.
	return c.write(ctx, pv, released(c.libraryFinalizer), "releasing")
}

func (c *Controller) volumeDeleted(pv *v1.PersistentVolume) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deletedVolumes[pv.UID]
}

func (c *Controller) setVolumeDeleted(pv *v1.PersistentVolume) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deletedVolumes[pv.UID] = true
}

// giveBackPolicy returns pv to its recorded reclaim policy and drops the
// bin's protection.
func (c *Controller) giveBackPolicy(ctx context.Context, pv *v1.PersistentVolume) error {
	return c.write(ctx, pv, handBack(pv, c.libraryFinalizer), "giving back the reclaim policy of")
}

// protect makes pv's volume safe from deleters that do not know the bin.
func (c *Controller) protect(ctx context.Context, pv *v1.PersistentVolume) error {
	if err := c.write(ctx, pv, protect(pv, c.libraryFinalizer), "protecting the kept volume of"); err != nil {
		return err
	}
	klog.FromContext(ctx).Info("Kept volume protected: reclaim policy Retain while the recycle bin keeps it", "recordedPolicy", reclaimPolicy(pv))
	return nil
}

// write sends change as one write pinned to pv's version: a PV that changed
// since answers 409 and is decided again from the fresher copy.
func (c *Controller) write(ctx context.Context, pv *v1.PersistentVolume, change finalizer.Change, what string) error {
	if _, err := finalizer.Write(ctx, c.volumeWriter, pv, change); err != nil {
		return fmt.Errorf("%s PersistentVolume %s: %w", what, pv.Name, err)
	}
	return nil
}

func volumeHandle(pv *v1.PersistentVolume) string {
	if pv.Spec.CSI != nil {
		return pv.Spec.CSI.VolumeHandle
	}
	return ""
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

// record writes the deadline, the claim it came from, the label and the
// protection in one write pinned to the PV's version: a PV that changed
// since is decided again from the fresher copy.
func (c *Controller) record(ctx context.Context, pv *v1.PersistentVolume, until time.Time) error {
	annotations, labels := Record(pv, until)
	change := protect(pv, c.libraryFinalizer)
	maps.Copy(change.SetAnnotations, annotations)
	change.SetLabels = labels
	if err := c.write(ctx, pv, change, "recording the retention of"); err != nil {
		return err
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
// says to which claim it was given, in one write pinned to the PV's
// version; kube-controller-manager then binds the two. The PV keeps saying
// Retain until they are bound (see sync), so that nothing deletes it while
// it is Released and on its way to the claim.
func (c *Controller) giveBack(ctx context.Context, pv *v1.PersistentVolume, claim *v1.PersistentVolumeClaim) error {
	annotations, labels := Recorded()
	change := protect(pv, c.libraryFinalizer)
	change.SetAnnotations[AnnRestoredTo] = claimID(claim.Namespace, claim.Name, claim.UID)
	change.RemoveAnnotations, change.RemoveLabels = annotations, labels
	if change.Spec == nil {
		change.Spec = map[string]any{}
	}
	change.Spec["claimRef"] = map[string]any{
		"kind": "PersistentVolumeClaim", "apiVersion": "v1",
		"namespace": claim.Namespace, "name": claim.Name, "uid": claim.UID,
		"resourceVersion": nil, "fieldPath": nil,
	}
	return c.write(ctx, pv, change, fmt.Sprintf("giving to claim %s", klog.KObj(claim)))
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
	delete(c.deletedVolumes, pv.UID)
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
