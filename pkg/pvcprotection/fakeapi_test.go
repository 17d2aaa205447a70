package pvcprotection

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// apiServer scripts the pod requests of the freshness check: the probe list
// answers with resourceVersion current, each watch replays the next script
// entry, a live list returns livePods (a bounded one too, unless
// pastLimit: then it says there is more, at resourceVersion current).
type apiServer struct {
	current  string
	watches  [][]watch.Event
	watchErr error
	livePods *v1.PodList
	// pastLimit: the namespace holds more pods than a bounded list asks
	// for.
	pastLimit bool

	probes, lists, watchCalls      atomic.Int32
	mu                             sync.Mutex
	watchOpts, probeOpts, listOpts []metav1.ListOptions
	// block, if set, holds the probe until closed.
	block chan struct{}
}

func (s *apiServer) install(client *fake.Clientset) {
	client.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		fs := a.(k8stesting.ListAction).GetListRestrictions().Fields.String()
		if strings.Contains(fs, noSuchPod) {
			s.probes.Add(1)
			s.mu.Lock()
			s.probeOpts = append(s.probeOpts, a.(k8stesting.ListActionImpl).ListOptions)
			s.mu.Unlock()
			if s.block != nil {
				<-s.block
			}
			return true, &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: s.current}}, nil
		}
		s.lists.Add(1)
		opts := a.(k8stesting.ListActionImpl).ListOptions
		s.mu.Lock()
		s.listOpts = append(s.listOpts, opts)
		s.mu.Unlock()
		if opts.Limit > 0 && s.pastLimit {
			return true, &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: s.current, Continue: "more"}}, nil
		}
		if s.livePods == nil {
			return true, &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: s.current}}, nil
		}
		return true, s.livePods.DeepCopy(), nil
	})
	client.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		n := int(s.watchCalls.Add(1)) - 1
		s.mu.Lock()
		s.watchOpts = append(s.watchOpts, a.(k8stesting.WatchActionImpl).ListOptions)
		s.mu.Unlock()
		if s.watchErr != nil {
			return true, nil, s.watchErr
		}
		w := watch.NewRaceFreeFake()
		if n < len(s.watches) {
			for _, ev := range s.watches[n] {
				w.Action(ev.Type, ev.Object)
			}
		}
		// The server ends the watch at its timeout.
		w.Stop()
		return true, w, nil
	})
}

// requests says how many probes, watches and pod lists the server has
// answered, as "1 probes, 1 watches, 0 lists".
func (s *apiServer) requests() string {
	return fmt.Sprintf("%d probes, %d watches, %d lists", s.probes.Load(), s.watchCalls.Load(), s.lists.Load())
}

func podEvent(t watch.EventType, pod *v1.Pod) watch.Event {
	return watch.Event{Type: t, Object: pod}
}

func bookmark(rv string) watch.Event {
	return watch.Event{Type: watch.Bookmark, Object: &v1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}}
}
