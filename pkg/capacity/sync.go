package capacity

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
)

func (c *Controller) sync(ctx context.Context, key Key) (reconcile.Result, error) {
	if key == topologyKey {
		return reconcile.Done, c.listSegments(ctx)
	}
	return reconcile.Done, c.syncObject(ctx, key)
}

// listSegments reads the topology's segments and queues the keys of every
// segment that came or went, for each of the driver's classes.
func (c *Controller) listSegments(ctx context.Context) error {
	segments, err := c.opts.Topology.Segments()
	if err != nil {
		return fmt.Errorf("listing topology segments: %w", err)
	}
	changed := c.segments.replace(segments)
	if len(changed) == 0 {
		return nil
	}
	klog.FromContext(ctx).V(2).Info("Topology segments changed", "segments", sortedKeys(segments), "changed", changed)
	classes, err := c.classes.List(everything)
	if err != nil {
		return err
	}
	for _, segment := range changed {
		for _, class := range classes {
			if class.Provisioner == c.opts.DriverName {
				c.enqueue(Key{Segment: segment, Class: class.Name})
			}
		}
	}
	return nil
}

// syncObject brings the object of key to what the driver reports, or
// deletes it when its segment or class is gone. Duplicates (two sidecars
// racing, a create whose answer was lost) are deleted, keeping the oldest.
// Creates and deletes are made here; an update is recorded as the key's
// pending write, for the writers.
func (c *Controller) syncObject(ctx context.Context, key Key) error {
	logger := klog.FromContext(ctx)
	objects, err := c.objectsOf(key)
	if err != nil {
		return err
	}
	segment, segmentOK := c.segments.get(key.Segment)
	class, err := c.classes.Get(key.Class)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if !segmentOK || class == nil || !c.wanted(class) {
		c.created.forget(key)
		c.refreshes.forget(key)
		c.writes.drop(key)
		return c.deleteAll(ctx, objects, "obsolete")
	}

	want := segment.Selector()
	var current *storagev1.CSIStorageCapacity
	var duplicates []*storagev1.CSIStorageCapacity
	for _, obj := range objects {
		if current == nil && equality.Semantic.DeepEqual(obj.NodeTopology, want) {
			current = obj
			continue
		}
		duplicates = append(duplicates, obj)
	}
	if err := c.deleteAll(ctx, duplicates, "duplicate"); err != nil {
		return err
	}
	if current != nil {
		c.created.forget(key)
	} else if c.created.pending(key) {
		// Created moments ago; its add event queues the key again.
		return nil
	}

	resp, err := c.getCapacity(ctx, segment, class)
	if err != nil {
		return err
	}
	available := resource.NewQuantity(resp.GetAvailableCapacity(), resource.BinarySI)
	var maxSize *resource.Quantity
	if m := resp.GetMaximumVolumeSize(); m != nil {
		maxSize = resource.NewQuantity(m.GetValue(), resource.BinarySI)
	}

	if current == nil {
		// Created at once, whatever writes are pending: a missing
		// object hides the segment from the scheduler.
		c.writes.drop(key)
		obj := &storagev1.CSIStorageCapacity{
			ObjectMeta: metav1.ObjectMeta{
				GenerateName: "csisc-",
				Labels:       map[string]string{DriverNameLabel: c.opts.DriverName, ManagedByLabel: c.opts.ManagedBy},
			},
			StorageClassName:  key.Class,
			NodeTopology:      want,
			Capacity:          available,
			MaximumVolumeSize: maxSize,
		}
		if c.opts.Owner != nil {
			obj.OwnerReferences = []metav1.OwnerReference{*c.opts.Owner}
		}
		created, err := c.opts.Client.StorageV1().CSIStorageCapacities(c.opts.Namespace).Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating CSIStorageCapacity: %w", err)
		}
		c.created.add(key, created.Name)
		c.refreshes.refreshed(key)
		logger.V(3).Info("Created CSIStorageCapacity", "CSIStorageCapacity", klog.KObj(created), "capacity", available, "maximumVolumeSize", maxSize)
		return nil
	}

	_, ownerChanged := c.owners(current)
	if sameQuantity(current.Capacity, available) && sameQuantity(current.MaximumVolumeSize, maxSize) && !ownerChanged {
		// Changed back, or never changed: nothing to write.
		c.writes.drop(key)
		c.refreshes.refreshed(key)
		return nil
	}
	// Not written here: the writers take the pending writes by priority,
	// so that no sync waits for the client's budget to update.
	c.recordWrite(ctx, key, current, available, maxSize)
	return nil
}

// getCapacity asks the driver about one segment and class. Capabilities
// are left out, as upstream does: capacity is assumed not to depend on
// them.
func (c *Controller) getCapacity(ctx context.Context, segment Segment, class *storagev1.StorageClass) (*csi.GetCapacityResponse, error) {
	req := &csi.GetCapacityRequest{Parameters: class.Parameters}
	if len(segment.Labels) > 0 {
		req.AccessibleTopology = &csi.Topology{Segments: segment.Labels}
	}
	callCtx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	resp, err := c.opts.CSI.GetCapacity(callCtx, req)
	if err != nil {
		return nil, fmt.Errorf("GetCapacity for StorageClass %s: %w", class.Name, err)
	}
	return resp, nil
}

// owners are current's owner references with Options.Owner as the
// controller, and whether that changes them. An object may have one
// controller only: one left by another owner (a recreated DaemonSet, say)
// is replaced. Without an owner configured, references are left alone.
func (c *Controller) owners(current *storagev1.CSIStorageCapacity) ([]metav1.OwnerReference, bool) {
	if c.opts.Owner == nil {
		return current.OwnerReferences, false
	}
	refs := make([]metav1.OwnerReference, 0, len(current.OwnerReferences)+1)
	found, changed := false, false
	for _, ref := range current.OwnerReferences {
		isController := ref.Controller != nil && *ref.Controller
		switch {
		case isController && ref.UID == c.opts.Owner.UID && !found:
			found = true
			refs = append(refs, ref)
		case isController:
			changed = true
		default:
			refs = append(refs, ref)
		}
	}
	if !found {
		refs = append(refs, *c.opts.Owner)
		changed = true
	}
	return refs, changed
}

// objectsOf lists the cached objects of key, oldest first.
func (c *Controller) objectsOf(key Key) ([]*storagev1.CSIStorageCapacity, error) {
	items, err := c.objects.ByIndex(itemIndex, indexValue(key))
	if err != nil {
		return nil, err
	}
	out := make([]*storagev1.CSIStorageCapacity, 0, len(items))
	for _, item := range items {
		if obj, ok := item.(*storagev1.CSIStorageCapacity); ok && c.managed(obj) {
			out = append(out, obj)
		}
	}
	slices.SortFunc(out, func(a, b *storagev1.CSIStorageCapacity) int {
		if d := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

func (c *Controller) deleteAll(ctx context.Context, objects []*storagev1.CSIStorageCapacity, why string) error {
	for _, obj := range objects {
		// Pinned to the UID seen: a newer object of the same name stays.
		uid := obj.UID
		err := c.opts.Client.StorageV1().CSIStorageCapacities(obj.Namespace).Delete(ctx, obj.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s CSIStorageCapacity %s: %w", why, obj.Name, err)
		}
		klog.FromContext(ctx).V(3).Info("Deleted CSIStorageCapacity", "CSIStorageCapacity", klog.KObj(obj), "reason", why)
	}
	return nil
}

func sameQuantity(a, b *resource.Quantity) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Cmp(*b) == 0
}

// createdPending is how long a created object not yet in the cache keeps
// its key from creating another: far longer than a watch lags, short
// enough that a lost event cannot stop the object from being made again.
const createdPending = time.Minute

// createdObjects remembers objects created but not yet seen by the
// informer, so a second sync of the key meanwhile does not create a twin.
type createdObjects struct {
	mu    sync.Mutex
	byKey map[Key]createdObject
	now   func() time.Time
}

type createdObject struct {
	name string
	at   time.Time
}

func (c *createdObjects) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

func (c *createdObjects) add(key Key, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byKey[key] = createdObject{name: name, at: c.clock()}
}

func (c *createdObjects) pending(key Key) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	obj, ok := c.byKey[key]
	return ok && c.clock().Sub(obj.at) < createdPending
}

func (c *createdObjects) forget(key Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byKey, key)
}

func (c *createdObjects) forgetName(key Key, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey[key].name == name {
		delete(c.byKey, key)
	}
}
