// Package finalizer builds the finalizer writes of the protection
// controllers.
//
// Every write is a JSON merge patch that carries the object's
// resourceVersion: it replaces the whole finalizer list, so it is only valid
// on the version it was computed from, and the API server answers 409
// Conflict if the object changed since. The caller then decides again from a
// fresher copy. That makes a removal safe against a change that would have
// kept the finalizer (a PV that became Bound), and two controllers adding
// the same finalizer (ours and kube-controller-manager's) can never write it
// twice.
package finalizer

import (
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Has reports whether obj carries the finalizer name.
func Has(obj metav1.Object, name string) bool {
	return slices.Contains(obj.GetFinalizers(), name)
}

// AddPatch returns the patch that adds name to obj's finalizers, or nil if
// obj already has it.
func AddPatch(obj metav1.Object, name string) ([]byte, error) {
	if Has(obj, name) {
		return nil, nil
	}
	return patch(obj, append(slices.Clone(obj.GetFinalizers()), name))
}

// RemovePatch returns the patch that removes name from obj's finalizers, or
// nil if obj does not have it.
func RemovePatch(obj metav1.Object, name string) ([]byte, error) {
	if !Has(obj, name) {
		return nil, nil
	}
	kept := slices.DeleteFunc(slices.Clone(obj.GetFinalizers()), func(f string) bool { return f == name })
	return patch(obj, kept)
}

type metadataPatch struct {
	Metadata patchMetadata `json:"metadata"`
}

type patchMetadata struct {
	ResourceVersion string `json:"resourceVersion"`
	UID             string `json:"uid"`
	// Finalizers is never omitted: an empty list must be written as [],
	// which clears the field, and null would mean the same to the server
	// but reads worse in an audit log.
	Finalizers []string `json:"finalizers"`
}

func patch(obj metav1.Object, finalizers []string) ([]byte, error) {
	if obj.GetResourceVersion() == "" {
		return nil, fmt.Errorf("%s has no resourceVersion to patch against", obj.GetName())
	}
	if finalizers == nil {
		finalizers = []string{}
	}
	return json.Marshal(metadataPatch{Metadata: patchMetadata{
		ResourceVersion: obj.GetResourceVersion(),
		UID:             string(obj.GetUID()),
		Finalizers:      finalizers,
	}})
}
