// Package finalizer is the one writer of finalizers in this project, and
// the bookkeeping of the deletions they hold.
//
// Every write is pinned to the version of the object it was computed from:
// a JSON merge patch that carries the object's resourceVersion and UID, or,
// for kinds whose RBAC grants update but not patch (claims under upstream
// external-provisioner's ClusterRole), an update of a copy of that version.
// Either replaces the whole finalizer list, so the API server answers 409
// Conflict if the object changed since (or 404 / Conflict if it was
// replaced by another of the same name). The caller then decides again from
// a fresher copy. That makes a removal safe against a change that would
// have kept the finalizer (a PV that became Bound), and two controllers
// adding the same finalizer can never write it twice.
package finalizer

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Has reports whether obj carries the finalizer name.
func Has(obj metav1.Object, name string) bool {
	return slices.Contains(obj.GetFinalizers(), name)
}

// Target writes a change to one object of one kind, pinned to the object's
// version; see PersistentVolumes, PersistentVolumeClaims, Resource, Func and
// Update.
type Target interface {
	// Write sends c, which changes obj, as one write pinned to obj's
	// resourceVersion and UID.
	Write(ctx context.Context, obj metav1.Object, c Change) error
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

// Write applies c to obj with one write pinned to obj's resourceVersion and
// UID. It writes nothing, and reports false, when c would change nothing.
// Errors wrap the API error, so apierrors.IsNotFound and IsConflict work on
// them.
func Write(ctx context.Context, to Target, obj metav1.Object, c Change) (bool, error) {
	if !plan(obj, c).changes() {
		return false, nil
	}
	if obj.GetResourceVersion() == "" {
		return false, fmt.Errorf("%s has no resourceVersion to write against", objectName(obj))
	}
	if err := to.Write(ctx, obj, c); err != nil {
		return false, fmt.Errorf("%s of %s %s: %w", describe(c), to.Kind(), objectName(obj), err)
	}
	return true, nil
}

// Patch returns the merge patch that applies c to obj, or nil if c changes
// nothing.
func Patch(obj metav1.Object, c Change) ([]byte, error) {
	d := plan(obj, c)
	if !d.changes() {
		return nil, nil
	}
	if obj.GetResourceVersion() == "" {
		return nil, fmt.Errorf("%s has no resourceVersion to patch against", objectName(obj))
	}
	meta := map[string]any{}
	if d.finalizersChanged {
		// Never null: an empty list is written as [], which clears the
		// field and reads better in an audit log.
		meta["finalizers"] = append([]string{}, d.finalizers...)
	}
	annotations := map[string]any{}
	for k, v := range d.setAnnotations {
		annotations[k] = v
	}
	for _, k := range d.removeAnnotations {
		annotations[k] = nil
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	meta["resourceVersion"] = obj.GetResourceVersion()
	meta["uid"] = string(obj.GetUID())
	return json.Marshal(map[string]any{"metadata": meta})
}

// Apply applies c to obj's metadata in place and reports whether it changed
// anything. Update targets call it on their copy.
func Apply(obj metav1.Object, c Change) bool {
	d := plan(obj, c)
	if !d.changes() {
		return false
	}
	if d.finalizersChanged {
		obj.SetFinalizers(d.finalizers)
	}
	if len(d.setAnnotations) > 0 || len(d.removeAnnotations) > 0 {
		annotations := maps.Clone(obj.GetAnnotations())
		if annotations == nil {
			annotations = map[string]string{}
		}
		maps.Copy(annotations, d.setAnnotations)
		for _, k := range d.removeAnnotations {
			delete(annotations, k)
		}
		obj.SetAnnotations(annotations)
	}
	return true
}

// delta is what a Change does to one object: only what differs from it.
type delta struct {
	finalizers        []string
	finalizersChanged bool
	setAnnotations    map[string]string
	removeAnnotations []string
}

func (d delta) changes() bool {
	return d.finalizersChanged || len(d.setAnnotations) > 0 || len(d.removeAnnotations) > 0
}

func plan(obj metav1.Object, c Change) delta {
	var d delta
	finalizers := slices.Clone(obj.GetFinalizers())
	for _, f := range c.Add {
		if !slices.Contains(finalizers, f) {
			finalizers = append(finalizers, f)
		}
	}
	finalizers = slices.DeleteFunc(finalizers, func(f string) bool { return slices.Contains(c.Remove, f) })
	if !slices.Equal(finalizers, obj.GetFinalizers()) {
		d.finalizers, d.finalizersChanged = finalizers, true
	}
	current := obj.GetAnnotations()
	for k, v := range c.SetAnnotations {
		if old, ok := current[k]; !ok || old != v {
			if d.setAnnotations == nil {
				d.setAnnotations = map[string]string{}
			}
			d.setAnnotations[k] = v
		}
	}
	for _, k := range c.RemoveAnnotations {
		if _, ok := current[k]; ok && !slices.Contains(d.removeAnnotations, k) {
			d.removeAnnotations = append(d.removeAnnotations, k)
		}
	}
	return d
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
