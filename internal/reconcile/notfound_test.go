package reconcile

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A gone object is no error; any other error stays.
func TestIgnoreNotFound(t *testing.T) {
	gone := apierrors.NewNotFound(schema.GroupResource{Resource: "persistentvolumes"}, "pv")
	if err := IgnoreNotFound(gone); err != nil {
		t.Errorf("not found: %v, want nil", err)
	}
	boom := errors.New("boom")
	if err := IgnoreNotFound(boom); err != boom {
		t.Errorf("another error: %v, want it", err)
	}
	if err := IgnoreNotFound(nil); err != nil {
		t.Errorf("no error: %v", err)
	}
}
