package finalizer

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// AddPatch and RemovePatch remain until every controller writes through
// Write; they are removed with the last caller.

// AddPatch returns the patch that adds name to obj's finalizers, or nil.
func AddPatch(obj metav1.Object, name string) ([]byte, error) {
	return Patch(obj, Change{Add: []string{name}})
}

// RemovePatch returns the patch that removes name from obj's finalizers, or nil.
func RemovePatch(obj metav1.Object, name string) ([]byte, error) {
	return Patch(obj, Change{Remove: []string{name}})
}
