package capacity

import (
	"context"
	"fmt"
	"sync"

	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// The writers make the updates syncs decide, apart from them: a sync never
// waits for the client's rate limiter, and with more changes than the
// client's budget allows, the changes the scheduler acts on go first
// instead of whichever came first.

// startWriters starts n writers (at least one) that write pending writes
// until ctx ends; Wait on the result waits for them.
func (c *Controller) startWriters(ctx context.Context, n int) *sync.WaitGroup {
	// Writers waiting for a write must see ctx end.
	context.AfterFunc(ctx, c.writes.wakeAll)
	var wg sync.WaitGroup
	for range max(n, 1) {
		wg.Go(func() {
			for c.writeNext(ctx) {
			}
		})
	}
	return &wg
}

// writeNext makes the pending write of highest priority, waiting for one;
// false once ctx has ended.
func (c *Controller) writeNext(ctx context.Context) bool {
	w, ok := c.writes.next(ctx)
	if !ok {
		return false
	}
	logger := klog.LoggerWithValues(klog.FromContext(ctx), logValues(w.key)...)
	err := c.write(klog.NewContext(ctx, logger), w)
	switch {
	case err == nil:
	case apierrors.IsConflict(err):
		// The cache is behind: the retry reads the newer copy.
		logger.V(4).Info("CSIStorageCapacity changed before the write, will retry", "err", err)
	default:
		logger.Error(err, "Write failed, will retry")
	}
	c.writes.done(w, err != nil)
	if c.opts.Written != nil {
		c.opts.Written(w.key, err)
	}
	return true
}

// write updates the object of w from its cached copy, pinned to the cached
// version, changing only capacity, maximumVolumeSize and the owner
// references.
func (c *Controller) write(ctx context.Context, w *pendingWrite) error {
	item, exists, err := c.objects.GetByKey(w.object.String())
	if err != nil {
		return err
	}
	current, ok := item.(*storagev1.CSIStorageCapacity)
	if !exists || !ok || current.UID != w.uid {
		// Gone or replaced since the check: a sync decides again (a
		// delete event has queued the key already, or will).
		c.enqueue(w.key)
		return nil
	}
	owners, ownerChanged := c.owners(current)
	if sameQuantity(current.Capacity, w.capacity) && sameQuantity(current.MaximumVolumeSize, w.maxSize) && !ownerChanged {
		// Published meanwhile (the cache caught up with an earlier write).
		c.refreshes.refreshed(w.key)
		return nil
	}
	update := current.DeepCopy()
	update.Capacity = copyQuantity(w.capacity)
	update.MaximumVolumeSize = copyQuantity(w.maxSize)
	update.OwnerReferences = owners
	if _, err := c.opts.Client.StorageV1().CSIStorageCapacities(update.Namespace).Update(ctx, update, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			// Deleted meanwhile: its delete event queues a re-creation.
			return nil
		}
		return fmt.Errorf("updating CSIStorageCapacity %s: %w", update.Name, err)
	}
	// Refreshed once published, not when the difference was seen.
	c.refreshes.refreshed(w.key)
	klog.FromContext(ctx).V(3).Info("Updated CSIStorageCapacity", "CSIStorageCapacity", klog.KObj(update),
		"capacity", update.Capacity, "maximumVolumeSize", update.MaximumVolumeSize, "crossing", w.priority.crossing)
	return nil
}

// recordWrite records the driver's answer for current as the key's pending
// write.
func (c *Controller) recordWrite(ctx context.Context, key Key, current *storagev1.CSIStorageCapacity, capacity, maxSize *resource.Quantity) {
	w := &pendingWrite{
		key:    key,
		object: cache.MetaObjectToName(current),
		uid:    current.UID,
		// Copies: a Quantity caches its text when logged.
		capacity: copyQuantity(capacity),
		maxSize:  copyQuantity(maxSize),
		priority: c.priority(key.Class, current, capacity, maxSize),
	}
	c.writes.record(w)
	klog.FromContext(ctx).V(4).Info("CSIStorageCapacity differs from GetCapacity, write pending", "CSIStorageCapacity", klog.KObj(current),
		"capacity", capacity, "maximumVolumeSize", maxSize, "crossing", w.priority.crossing, "change", w.priority.change)
}

func copyQuantity(q *resource.Quantity) *resource.Quantity {
	if q == nil {
		return nil
	}
	out := q.DeepCopy()
	return &out
}
