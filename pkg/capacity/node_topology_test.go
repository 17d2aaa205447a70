package capacity

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// Node and CSINode events go on the topology's own queue, as one key for
// the whole list, and the capacity controller hears only of changes.
func TestNodeTopologyQueuesOneKeyAndTellsOnlyChanges(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	client := fake.NewClientset(nodeWithDriver("n1")...)
	factory := informers.NewSharedInformerFactory(client, 0)
	synced := make(chan string, 100)
	topo, err := NewNodeTopology(NodeTopologyOptions{
		DriverName: testDriver, Nodes: factory.Core().V1().Nodes(), CSINodes: factory.Storage().V1().CSINodes(),
		Processed: func(key string, _ reconcile.Result, err error) {
			if err != nil {
				t.Errorf("sync: %v", err)
			}
			synced <- key
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var told atomic.Int32
	topo.OnChange(func() { told.Add(1) })
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	if synced := topo.Synced(); synced[len(synced)-1]() {
		t.Fatal("synced before the first listing")
	}
	factory.Start(ctx.Done())
	go topo.Run(ctx)

	// next waits until a listing finds want segments, and checks every
	// listing was of the one key.
	next := func(want int) {
		t.Helper()
		for {
			select {
			case key := <-synced:
				if key != allSegments {
					t.Fatalf("synced key %q, want the one key %q", key, allSegments)
				}
				if segments, _ := topo.Segments(); len(segments) == want {
					return
				}
			case <-time.After(10 * time.Second):
				segments, _ := topo.Segments()
				t.Fatalf("no listing found %d segments; last %v", want, sortedKeys(segments))
			}
		}
	}
	next(1)
	for _, fn := range topo.Synced() {
		if !fn() {
			t.Fatal("not synced after the first listing")
		}
	}
	if got := told.Load(); got != 1 {
		t.Fatalf("told %d times of the first segment, want 1", got)
	}

	// A label that is no topology key: listed again, nothing to tell.
	n1, err := client.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n1.Labels["unrelated"] = "x"
	if _, err := client.CoreV1().Nodes().Update(ctx, n1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	next(1)
	if got := told.Load(); got != 1 {
		t.Fatalf("told %d times after an unrelated label, want 1", got)
	}

	n2 := nodeWithDriver("n2")
	if _, err := client.CoreV1().Nodes().Create(ctx, n2[0].(*v1.Node), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.StorageV1().CSINodes().Create(ctx, csiNode("n2", topologyKey1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	next(2)
	// The listing that found the segment may be read before the sync that
	// made it has told: wait for the telling, then check it was once.
	testutil.Eventually(t, 10*time.Second, "told of the new segment", func() bool { return told.Load() >= 2 })
	if got := told.Load(); got != 2 {
		t.Errorf("told %d times after a new segment, want 2", got)
	}
}
