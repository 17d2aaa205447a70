// Package finalizer is the one writer of finalizers in this project and
// the one builder of writes pinned to an object's version (a finalizer
// with the annotations, labels or spec that go with it, or a status
// alone), and the bookkeeping of the deletions finalizers hold.
//
// Every write is pinned to the version of the object it was computed from:
// a patch that carries the object's resourceVersion and UID, or, for kinds
// whose RBAC grants update but not patch (claims under upstream
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

// Change is what one write does to an object: its metadata, a fragment of
// its spec, or its status.
type Change struct {
	// Add and Remove are finalizer names; adding one that is there, or
	// removing one that is not, is nothing.
	Add    []string
	Remove []string
	// SetAnnotations are written in the same patch; RemoveAnnotations are
	// cleared in it, so a finalizer and its marker change together.
	SetAnnotations    map[string]string
	RemoveAnnotations []string
	// SetLabels and RemoveLabels change labels in the same write.
	SetLabels    map[string]string
	RemoveLabels []string
	// Spec is a JSON merge patch of the object's spec sent in the same
	// write, for a finalizer that goes with a change of what the object
	// asks for (a PV's reclaim policy). Only patch targets send it.
	Spec map[string]any
	// Status is a patch of the object's status, for its status
	// subresource, which ignores the rest of a write: a change with Status
	// holds nothing else. It is sent as given, so that a strategic-merge
	// directive ("$patch") reaches a target of strategic-merge patches.
	// Only patch targets send it.
	Status map[string]any
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

// Patch returns the patch that applies c to obj, or nil if c changes
// nothing: a merge patch, or with c.Status the patch of the status
// subresource, which the caller sends as a merge or strategic-merge patch.
func Patch(obj metav1.Object, c Change) ([]byte, error) {
	if len(c.Status) > 0 && !c.statusAlone() {
		return nil, fmt.Errorf("a change of the status of %s is written alone, to the status subresource", objectName(obj))
	}
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
	if m := mergePatchOf(d.setAnnotations, d.removeAnnotations); m != nil {
		meta["annotations"] = m
	}
	if m := mergePatchOf(d.setLabels, d.removeLabels); m != nil {
		meta["labels"] = m
	}
	meta["resourceVersion"] = obj.GetResourceVersion()
	meta["uid"] = string(obj.GetUID())
	body := map[string]any{"metadata": meta}
	if len(c.Spec) > 0 {
		body["spec"] = c.Spec
	}
	if len(c.Status) > 0 {
		body["status"] = c.Status
	}
	return json.Marshal(body)
}

// statusAlone tells whether c changes nothing but the status.
func (c Change) statusAlone() bool {
	return len(c.Add) == 0 && len(c.Remove) == 0 && len(c.SetAnnotations) == 0 && len(c.RemoveAnnotations) == 0 &&
		len(c.SetLabels) == 0 && len(c.RemoveLabels) == 0 && len(c.Spec) == 0
}

// Apply applies c to obj's metadata in place and reports whether it changed
// anything. Update targets call it on their copy; c.Spec and c.Status are
// not applied (Write refuses them for them).
func Apply(obj metav1.Object, c Change) bool {
	d := plan(obj, c)
	if !d.changes() {
		return false
	}
	if d.finalizersChanged {
		obj.SetFinalizers(d.finalizers)
	}
	if len(d.setAnnotations) > 0 || len(d.removeAnnotations) > 0 {
		obj.SetAnnotations(applied(obj.GetAnnotations(), d.setAnnotations, d.removeAnnotations))
	}
	if len(d.setLabels) > 0 || len(d.removeLabels) > 0 {
		obj.SetLabels(applied(obj.GetLabels(), d.setLabels, d.removeLabels))
	}
	return true
}

// mergePatchOf is the merge patch of a string map that writes set and
// removes remove (null), or nil when it changes nothing.
func mergePatchOf(set map[string]string, remove []string) map[string]any {
	if len(set) == 0 && len(remove) == 0 {
		return nil
	}
	m := make(map[string]any, len(set)+len(remove))
	for k, v := range set {
		m[k] = v
	}
	for _, k := range remove {
		m[k] = nil
	}
	return m
}

// applied is a copy of m with set written and remove deleted.
func applied(m, set map[string]string, remove []string) map[string]string {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, set)
	for _, k := range remove {
		delete(out, k)
	}
	return out
}

// delta is what a Change does to one object: only what differs from it.
type delta struct {
	finalizers        []string
	finalizersChanged bool
	setAnnotations    map[string]string
	removeAnnotations []string
	setLabels         map[string]string
	removeLabels      []string
	spec              bool
	status            bool
}

func (d delta) changes() bool {
	return d.finalizersChanged || len(d.setAnnotations) > 0 || len(d.removeAnnotations) > 0 ||
		len(d.setLabels) > 0 || len(d.removeLabels) > 0 || d.spec || d.status
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
	d.setAnnotations, d.removeAnnotations = planMap(obj.GetAnnotations(), c.SetAnnotations, c.RemoveAnnotations)
	d.setLabels, d.removeLabels = planMap(obj.GetLabels(), c.SetLabels, c.RemoveLabels)
	// The caller asks for a spec or status change only when it differs:
	// the object's spec and status are not read here.
	d.spec = len(c.Spec) > 0
	d.status = len(c.Status) > 0
	return d
}

// planMap returns what of set and remove changes current.
func planMap(current, set map[string]string, remove []string) (map[string]string, []string) {
	var toSet map[string]string
	var toRemove []string
	for k, v := range set {
		if old, ok := current[k]; !ok || old != v {
			if toSet == nil {
				toSet = map[string]string{}
			}
			toSet[k] = v
		}
	}
	for _, k := range remove {
		if _, ok := current[k]; ok && !slices.Contains(toRemove, k) {
			toRemove = append(toRemove, k)
		}
	}
	return toSet, toRemove
}

func describe(c Change) string {
	switch {
	case len(c.Add) > 0 && len(c.Remove) == 0:
		return fmt.Sprintf("add finalizer %v", c.Add)
	case len(c.Remove) > 0 && len(c.Add) == 0:
		return fmt.Sprintf("remove finalizer %v", c.Remove)
	case len(c.Status) > 0:
		return "write status"
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
