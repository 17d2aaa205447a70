package testutil

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// AddTo puts objs in store, the cache of an informer that does not run, as
// its informer would: for a test that moves a controller's caches itself.
func AddTo[T runtime.Object](t testing.TB, store cache.Store, objs ...T) {
	t.Helper()
	for _, obj := range objs {
		if err := store.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
}

// WaitCurrent waits until store holds the object namespace/name ("" for a
// cluster-scoped one) as client has it now, at its resourceVersion, or
// holds none when client has none: so that a sync a test runs next decides
// on what the API server has. See WaitCached.
func WaitCurrent[T Object](t testing.TB, timeout time.Duration, store cache.Store, client Getter[T], namespace, name string) {
	t.Helper()
	resourceVersion := ""
	if obj, ok := Find(t, client, name); ok {
		resourceVersion = obj.GetResourceVersion()
	}
	WaitCached(t, timeout, store, cache.ObjectName{Namespace: namespace, Name: name}.String(), resourceVersion)
}
