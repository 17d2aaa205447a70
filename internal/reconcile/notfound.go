package reconcile

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// IgnoreNotFound is err, or nil when err says the object is gone: a sync
// of an object that no longer exists has nothing to do.
func IgnoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
