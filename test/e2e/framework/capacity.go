package framework

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The labels external-provisioner puts on the CSIStorageCapacity objects it
// manages, and their values.
const (
	CapacityDriverLabel    = "csi.storage.k8s.io/drivername"
	CapacityManagedByLabel = "csi.storage.k8s.io/managed-by"
	// CapacityManagedByCentral is the managed-by value of a central
	// sidecar; a node's sidecar uses CapacityManagedByNode.
	CapacityManagedByCentral = "external-provisioner"
)

// CapacityManagedByNode is the managed-by value of the sidecar of a node
// (--node-deployment).
func CapacityManagedByNode(node string) string { return CapacityManagedByCentral + "-" + node }

// CapacityLabels are the labels of the objects a sidecar of the stack's
// driver manages: managedBy is CapacityManagedByCentral or
// CapacityManagedByNode(node). An empty managedBy selects by driver only.
func (s *Stack) CapacityLabels(managedBy string) map[string]string {
	l := map[string]string{CapacityDriverLabel: s.driverOpts.Name}
	if managedBy != "" {
		l[CapacityManagedByLabel] = managedBy
	}
	return l
}

// ListCapacities lists the CSIStorageCapacity objects in the stack's
// namespace with all the given labels (all objects for none), sorted by
// name.
func (s *Stack) ListCapacities(ctx context.Context, selector map[string]string) ([]storagev1.CSIStorageCapacity, error) {
	list, err := s.Client().StorageV1().CSIStorageCapacities(s.namespace).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(selector).String(),
	})
	if err != nil {
		return nil, err
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items, nil
}

// WaitForCapacities waits until the CSIStorageCapacity objects in the
// stack's namespace with the given labels satisfy cond, and returns them.
// cond returns nil once they do, else an error that says what it saw, which
// the timeout error repeats. Like WaitFor it gives up early if a component
// of the stack exits.
func (s *Stack) WaitForCapacities(ctx context.Context, timeout time.Duration, what string, selector map[string]string, cond func([]storagev1.CSIStorageCapacity) error) ([]storagev1.CSIStorageCapacity, error) {
	var got []storagev1.CSIStorageCapacity
	err := s.WaitFor(ctx, timeout, what, func(ctx context.Context) (bool, error) {
		list, err := s.ListCapacities(ctx, selector)
		if err != nil {
			return false, err
		}
		if err := cond(list); err != nil {
			return false, fmt.Errorf("%w; objects: %s", err, DescribeCapacities(list))
		}
		got = list
		return true, nil
	})
	return got, err
}

// CapacityKey identifies what a CSIStorageCapacity object is about: its
// StorageClass and the value of the topology key in its nodeTopology.
type CapacityKey struct {
	Class   string
	Segment string
}

func (k CapacityKey) String() string { return k.Class + "@" + k.Segment }

// CapacitySegment returns the value nodeTopology requires for key, if
// nodeTopology is exactly matchLabels {key: value}; ok is false for any
// other selector.
func CapacitySegment(c *storagev1.CSIStorageCapacity, key string) (value string, ok bool) {
	t := c.NodeTopology
	if t == nil || len(t.MatchExpressions) > 0 || len(t.MatchLabels) != 1 {
		return "", false
	}
	value, ok = t.MatchLabels[key]
	return value, ok
}

// IndexCapacities maps the objects by class and segment of the topology
// key. An object whose nodeTopology is not exactly {key: value}, or two
// objects for the same class and segment, are an error.
func IndexCapacities(list []storagev1.CSIStorageCapacity, key string) (map[CapacityKey]storagev1.CSIStorageCapacity, error) {
	index := map[CapacityKey]storagev1.CSIStorageCapacity{}
	for _, c := range list {
		segment, ok := CapacitySegment(&c, key)
		if !ok {
			return nil, fmt.Errorf("%s has nodeTopology %s, want matchLabels {%s: <node>}", c.Name, metav1.FormatLabelSelector(c.NodeTopology), key)
		}
		k := CapacityKey{Class: c.StorageClassName, Segment: segment}
		if prev, dup := index[k]; dup {
			return nil, fmt.Errorf("%s and %s are both for %s", prev.Name, c.Name, k)
		}
		index[k] = c
	}
	return index, nil
}

// DescribeCapacities sums up objects for an error message: name, class,
// topology, capacity and maximum volume size.
func DescribeCapacities(list []storagev1.CSIStorageCapacity) string {
	if len(list) == 0 {
		return "none"
	}
	parts := make([]string, len(list))
	for i, c := range list {
		capacity, maxSize := "nil", "nil"
		if c.Capacity != nil {
			capacity = c.Capacity.String()
		}
		if c.MaximumVolumeSize != nil {
			maxSize = c.MaximumVolumeSize.String()
		}
		parts[i] = fmt.Sprintf("%s{class %s, topology %s, capacity %s, max %s}", c.Name, c.StorageClassName, metav1.FormatLabelSelector(c.NodeTopology), capacity, maxSize)
	}
	return strings.Join(parts, ", ")
}
