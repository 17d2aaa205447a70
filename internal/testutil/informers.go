package testutil

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

// InformerFactory is a shared informer factory of any clientset: the
// core one, the snapshot one, the LocalVolume one.
type InformerFactory interface {
	Start(stopCh <-chan struct{})
	WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool
	Shutdown()
}

// StartInformers starts the informers the factories have handed out so
// far, and waits until their caches have synced. They stop, and the
// factories shut down, when the test ends.
func StartInformers(t testing.TB, ctx context.Context, factories ...InformerFactory) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(func() {
		cancel()
		for _, f := range factories {
			f.Shutdown()
		}
	})
	for _, f := range factories {
		f.Start(ctx.Done())
	}
	for _, f := range factories {
		for typ, synced := range f.WaitForCacheSync(ctx.Done()) {
			if !synced {
				t.Fatalf("the cache of %v did not sync", typ)
			}
		}
	}
}

// Indexer is a cache holding objs, with the namespace index, for a lister
// over objects that do not change.
func Indexer[T runtime.Object](t testing.TB, objs ...T) cache.Indexer {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, obj := range objs {
		if err := indexer.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	return indexer
}

// WaitCached waits until store holds key ("namespace/name", or "name")
// at resourceVersion, or holds no key when resourceVersion is "": so that
// a sync a test runs next decides on what the API server has. Every write
// of the fake API server bumps the resourceVersion.
func WaitCached(t testing.TB, timeout time.Duration, store cache.Store, key, resourceVersion string) {
	t.Helper()
	Await(t, timeout, "the cache to show "+key+" at "+versionOrGone(resourceVersion), func() error {
		obj, ok, err := store.GetByKey(key)
		if err != nil {
			return err
		}
		got := ""
		if ok {
			m, err := meta.Accessor(obj)
			if err != nil {
				return err
			}
			got = m.GetResourceVersion()
		}
		if got != resourceVersion {
			return fmt.Errorf("the cache has %s", versionOrGone(got))
		}
		return nil
	})
}

// WaitCachedThat waits until store holds key and cond holds of it, and
// returns it.
func WaitCachedThat[T runtime.Object](t testing.TB, timeout time.Duration, store cache.Store, key string, cond func(T) bool) T {
	t.Helper()
	var found T
	Eventually(t, timeout, "the cache to show "+key, func() bool {
		obj, ok, err := store.GetByKey(key)
		if !ok || err != nil {
			return false
		}
		found, ok = obj.(T)
		return ok && cond(found)
	})
	return found
}

func versionOrGone(resourceVersion string) string {
	if resourceVersion == "" {
		return "none"
	}
	return "version " + resourceVersion
}

// StoreVersions are the resourceVersions of what store holds, by
// namespace/name.
func StoreVersions(store cache.Store) map[string]string {
	return versions(store.List())
}

// TrackerVersions are the resourceVersions of the objects of a resource
// that a fake API server's tracker holds, by namespace/name, to compare
// with StoreVersions: a cache that holds the same is current.
func TrackerVersions(t testing.TB, tracker k8stesting.ObjectTracker, gvr schema.GroupVersionResource, kind string) map[string]string {
	t.Helper()
	list, err := tracker.List(gvr, gvr.GroupVersion().WithKind(kind), "")
	if err != nil {
		t.Fatal(err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		t.Fatal(err)
	}
	return versions(items)
}

func versions[T any](objs []T) map[string]string {
	out := map[string]string{}
	for _, obj := range objs {
		m, err := meta.Accessor(obj)
		if err != nil {
			continue
		}
		out[m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
	}
	return out
}
