package pvcprotection

import "fmt"

// compareResourceVersions orders two resource versions like
// k8s.io/apimachinery/pkg/util/resourceversion.CompareResourceVersion, which
// is not vendored in this module: Kubernetes resource versions are opaque
// strings, but the API server (etcd revisions) hands out decimal integers
// without leading zeros and documents that they may be compared that way.
// Anything else is an error, and the caller then cannot trust the cache.
func compareResourceVersions(a, b string) (int, error) {
	if err := checkResourceVersion(a); err != nil {
		return 0, err
	}
	if err := checkResourceVersion(b); err != nil {
		return 0, err
	}
	// Equal-length decimal strings without leading zeros compare like the
	// numbers they spell; a longer one is larger. No overflow either way.
	switch {
	case len(a) < len(b):
		return -1, nil
	case len(a) > len(b):
		return 1, nil
	case a < b:
		return -1, nil
	case a > b:
		return 1, nil
	}
	return 0, nil
}

func checkResourceVersion(rv string) error {
	if rv == "" {
		return fmt.Errorf("empty resource version")
	}
	if rv[0] == '0' && len(rv) > 1 {
		return fmt.Errorf("resource version %q has a leading zero", rv)
	}
	for i := 0; i < len(rv); i++ {
		if rv[i] < '0' || rv[i] > '9' {
			return fmt.Errorf("resource version %q is not a decimal number", rv)
		}
	}
	return nil
}

// atLeast reports whether rv >= min; false for anything not comparable.
func atLeast(rv, min string) bool {
	c, err := compareResourceVersions(rv, min)
	return err == nil && c >= 0
}
