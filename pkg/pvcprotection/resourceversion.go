package pvcprotection

import "k8s.io/apimachinery/pkg/util/resourceversion"

// Kubernetes resource versions are opaque strings, but the API server (etcd
// revisions) hands out decimal integers without leading zeros and documents
// that they may be compared that way, which
// resourceversion.CompareResourceVersion does. Anything else is an error, and
// the caller then cannot trust the cache.

// checkResourceVersion tells whether rv is a well-formed, comparable
// resource version: nil if so, resourceversion.InvalidResourceVersion if not.
func checkResourceVersion(rv string) error {
	_, err := resourceversion.CompareResourceVersion(rv, rv)
	return err
}

// atLeast reports whether rv >= min; false for anything not comparable.
func atLeast(rv, min string) bool {
	c, err := resourceversion.CompareResourceVersion(rv, min)
	return err == nil && c >= 0
}
