package testutil

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
)

// Watches records the resources whose watch a fake API server has
// registered. An informer reports itself synced before its watch is
// registered, and a fake without ServerSemantics' tracker drops what
// happens in between; so a test that writes only once every informer
// watches loses no event.
type Watches struct {
	mu      sync.Mutex
	started map[string]bool
}

// Record makes the fake register its watches with tracker, as its own
// reactor does, and record them once registered.
func (w *Watches) Record(f interface {
	PrependWatchReactor(resource string, reaction k8stesting.WatchReactionFunc)
}, tracker k8stesting.ObjectTracker) {
	f.PrependWatchReactor("*", func(action k8stesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if a, ok := action.(k8stesting.WatchActionImpl); ok {
			opts = a.ListOptions
		}
		wi, err := tracker.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return true, nil, err
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.started == nil {
			w.started = map[string]bool{}
		}
		w.started[action.GetResource().Resource] = true
		return true, wi, nil
	})
}

// Watching tells whether every one of resources is watched.
func (w *Watches) Watching(resources ...string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range resources {
		if !w.started[r] {
			return false
		}
	}
	return true
}
