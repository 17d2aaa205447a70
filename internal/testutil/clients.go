package testutil

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// The helpers below read and write through a typed client of any kind
// (client.CoreV1().PersistentVolumeClaims("apps"), a snapshot or a
// LocalVolume client...), as a user or another controller does, and fail
// the test on an error. They wait for no cache.

// Object is a typed API object.
type Object interface {
	metav1.Object
	runtime.Object
}

// Getter is the read of a typed client.
type Getter[T Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
}

// Creator is the create of a typed client.
type Creator[T Object] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
}

// Updater is the read and update of a typed client.
type Updater[T Object] interface {
	Getter[T]
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// StatusUpdater is the read and status update of a typed client.
type StatusUpdater[T Object] interface {
	Getter[T]
	UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// Deleter is the delete of a typed client.
type Deleter interface {
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Get reads the object name, which must exist.
func Get[T Object](t testing.TB, client Getter[T], name string) T {
	t.Helper()
	obj, err := client.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// Find reads the object name, and false when there is none.
func Find[T Object](t testing.TB, client Getter[T], name string) (T, bool) {
	t.Helper()
	obj, err := client.Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		var none T
		return none, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return obj, true
}

// Create stores obj and returns it as stored.
func Create[T Object](t testing.TB, client Creator[T], obj T) T {
	t.Helper()
	created, err := client.Create(context.Background(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// Update reads the object name, applies change and updates it, and
// returns it as stored.
func Update[T Object](t testing.TB, client Updater[T], name string, change func(T)) T {
	t.Helper()
	return readAndWrite(t, client, name, change, client.Update)
}

// UpdateStatus is Update of the status subresource, as the binder or
// another status writer changes it.
func UpdateStatus[T Object](t testing.TB, client StatusUpdater[T], name string, change func(T)) T {
	t.Helper()
	return readAndWrite(t, client, name, change, client.UpdateStatus)
}

func readAndWrite[T Object](t testing.TB, client Getter[T], name string, change func(T), write func(context.Context, T, metav1.UpdateOptions) (T, error)) T {
	t.Helper()
	obj := Get(t, client, name)
	change(obj)
	written, err := write(context.Background(), obj, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return written
}

// Delete deletes the object name; its finalizers, if any, keep it, being
// deleted.
func Delete(t testing.TB, client Deleter, name string) {
	t.Helper()
	if err := client.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// CreateOrReplace creates obj, or replaces the object of its name if there
// is one, whatever its version; obj itself is not changed.
func CreateOrReplace[T Object](t testing.TB, client interface {
	Updater[T]
	Creator[T]
}, obj T) T {
	t.Helper()
	cur, ok := Find(t, client, obj.GetName())
	if !ok {
		return Create(t, client, obj)
	}
	obj = obj.DeepCopyObject().(T)
	obj.SetResourceVersion(cur.GetResourceVersion())
	updated, err := client.Update(context.Background(), obj, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return updated
}

// PV reads a PV from the (fake) API server, failing the test if it cannot.
func PV(t testing.TB, client kubernetes.Interface, name string) *v1.PersistentVolume {
	t.Helper()
	return Get(t, client.CoreV1().PersistentVolumes(), name)
}

// UpdatePV changes a PV on the API server as a user does: it reads it,
// applies change and updates it, failing the test on any error. It does not
// wait for any cache.
func UpdatePV(t testing.TB, client kubernetes.Interface, name string, change func(*v1.PersistentVolume)) {
	t.Helper()
	Update(t, client.CoreV1().PersistentVolumes(), name, change)
}
