package cleanup

import (
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
)

// watchLog records the resources whose watch a fake API server has
// registered. The fakes drop what happens between an informer's LIST and
// its WATCH (they cannot resume from a resourceVersion), and an informer
// reports itself synced before its watch is registered; so a test writes
// only once every informer of the controller watches.
type watchLog struct {
	mu      sync.Mutex
	started map[string]bool
}

// reactor registers the watch with tracker, as the fakes' own reactors do,
// and records it once registered.
func (w *watchLog) reactor(tracker k8stesting.ObjectTracker) k8stesting.WatchReactionFunc {
	return func(action k8stesting.Action) (bool, watch.Interface, error) {
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
	}
}

func (w *watchLog) watching(resources []string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range resources {
		if !w.started[r] {
			return false
		}
	}
	return true
}

// waitWatching waits until every informer of the controller watches.
func (e *env) waitWatching(t *testing.T) {
	t.Helper()
	var resources []string
	if e.ctrl.volumeIndex != nil {
		resources = append(resources, pvGVR.Resource)
	}
	if e.ctrl.nodeIndex != nil {
		resources = append(resources, nodeGVR.Resource)
	}
	for _, k := range e.ctrl.kinds {
		resources = append(resources, k.gvr.Resource)
	}
	eventually(t, "every informer to watch", func() bool { return e.watches.watching(resources) })
}
