// Package finalizer is the one writer of finalizers in this project, and
// the bookkeeping of the deletions they hold.
//
// Every write is a JSON merge patch that carries the object's
// resourceVersion and UID: it replaces the whole finalizer list, so it is
// only valid on the version it was computed from, and the API server
// answers 409 Conflict if the object changed since (or 404 / Conflict if it
// was replaced by another of the same name). The caller then decides again
// from a fresher copy. That makes a removal safe against a change that
// would have kept the finalizer (a PV that became Bound), and two
// controllers adding the same finalizer can never write it twice.
package finalizer

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Has reports whether obj carries the finalizer name.
func Has(obj metav1.Object, name string) bool {
	return slices.Contains(obj.GetFinalizers(), name)
}

// Target sends a merge patch to one object of one kind; see
// PersistentVolumes, PersistentVolumeClaims and Resource.
type Target interface {
	Patch(ctx context.Context, namespace, name string, patch []byte) error
	// Kind names the objects in errors, e.g. "PersistentVolume".
	Kind() string
}

// Change is what one write does to an object's metadata.
type Change struct {
	// Add and Remove are finalizer names; adding one that is there, or
	// removing one that is not, is nothing.
	Add    []string
	Remove []string
	// SetAnnotations are written in the same patch; RemoveAnnotations are
	// cleared in it, so a finalizer and its marker change together.
	SetAnnotations    map[string]string
	RemoveAnnotations []string
}

// Option adds to the change of Add or Remove.
type Option func(*Change)

// WithAnnotation sets an annotation in the same write.
func WithAnnotation(key, value string) Option {
	return func(c *Change) {
		if c.SetAnnotations == nil {
			c.SetAnnotations = map[string]string{}
		}
		c.SetAnnotations[key] = value
	}
}

// WithoutAnnotation clears an annotation in the same write.
func WithoutAnnotation(key string) Option {
	return func(c *Change) { c.RemoveAnnotations = append(c.RemoveAnnotations, key) }
}

// Add adds the finalizer name to obj, and reports whether it wrote.
func Add(ctx context.Context, to Target, obj metav1.Object, name string, opts ...Option) (bool, error) {
	return Write(ctx, to, obj, change(Change{Add: []string{name}}, opts))
}

// Remove removes the finalizer name from obj, and reports whether it wrote.
func Remove(ctx context.Context, to Target, obj metav1.Object, name string, opts ...Option) (bool, error) {
	return Write(ctx, to, obj, change(Change{Remove: []string{name}}, opts))
}

func change(c Change, opts []Option) Change {
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Write applies c to obj with one patch pinned to obj's resourceVersion and
// UID. It writes nothing, and reports false, when c would change nothing.
// Errors wrap the API error, so apierrors.IsNotFound and IsConflict work on
// them.
func Write(ctx context.Context, to Target, obj metav1.Object, c Change) (bool, error) {
	patch, err := Patch(obj, c)
	if err != nil || patch == nil {
		return false, err
	}
	if err := to.Patch(ctx, obj.GetNamespace(), obj.GetName(), patch); err != nil {
		return false, fmt.Errorf("%s of %s %s: %w", describe(c), to.Kind(), objectName(obj), err)
	}
	return true, nil
}

// Patch returns the merge patch that applies c to obj, or nil if c changes
// nothing.
func Patch(obj metav1.Object, c Change) ([]byte, error) {
	meta := map[string]any{}
	finalizers := slices.Clone(obj.GetFinalizers())
	for _, f := range c.Add {
		if !slices.Contains(finalizers, f) {
			finalizers = append(finalizers, f)
		}
	}
	finalizers = slices.DeleteFunc(finalizers, func(f string) bool { return slices.Contains(c.Remove, f) })
	if !slices.Equal(finalizers, obj.GetFinalizers()) {
		// Never null: an empty list is written as [], which clears the
		// field and reads better in an audit log.
		meta["finalizers"] = append([]string{}, finalizers...)
	}
	annotations := map[string]any{}
	current := obj.GetAnnotations()
	for k, v := range c.SetAnnotations {
		if old, ok := current[k]; !ok || old != v {
			annotations[k] = v
		}
	}
	for _, k := range c.RemoveAnnotations {
		if _, ok := current[k]; ok {
			annotations[k] = nil
		}
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	if len(meta) == 0 {
		return nil, nil
	}
	if obj.GetResourceVersion() == "" {
		return nil, fmt.Errorf("%s has no resourceVersion to patch against", objectName(obj))
	}
	meta["resourceVersion"] = obj.GetResourceVersion()
	meta["uid"] = string(obj.GetUID())
	return json.Marshal(map[string]any{"metadata": meta})
}

func describe(c Change) string {
	switch {
	case len(c.Add) > 0 && len(c.Remove) == 0:
		return fmt.Sprintf("add finalizer %v", c.Add)
	case len(c.Remove) > 0 && len(c.Add) == 0:
		return fmt.Sprintf("remove finalizer %v", c.Remove)
	case len(c.Add) == 0 && len(c.Remove) == 0:
		return "annotate"
	}
	return fmt.Sprintf("add finalizer %v and remove %v", c.Add, c.Remove)
}

func objectName(obj metav1.Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}
