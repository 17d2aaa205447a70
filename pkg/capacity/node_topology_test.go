package capacity

import (
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// Node and CSINode events go on the topology's own queue, as one key for
// the whole list, and the capacity controller hears only of changes.
func TestNodeTopologyQueuesOneKeyAndTellsOnlyChanges(t *testing.T) {
	e := testutil.NewEnv(t, testutil.EnvOptions{Objects: nodeWithDriver("n1"), Timeout: 10 * time.Second})
	synced := make(chan string, 100)
	topo, err := NewNodeTopology(NodeTopologyOptions{
		DriverName: testDriver, Nodes: e.Informers.Core().V1().Nodes(), CSINodes: e.Informers.Storage().V1().CSINodes(),
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
	if synced := topo.Synced(); synced[len(synced)-1]() {
		t.Fatal("synced before the first listing")
	}
	e.StartInformers(t)
	e.Run(t, topo.Run)

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
			case <-time.After(e.Timeout):
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
	testutil.Update(t, e.Client.CoreV1().Nodes(), "n1", func(n *v1.Node) { n.Labels["unrelated"] = "x" })
	next(1)
	if got := told.Load(); got != 1 {
		t.Fatalf("told %d times after an unrelated label, want 1", got)
	}

	testutil.Create(t, e.Client.CoreV1().Nodes(), node("n2", map[string]string{topologyKey1: "n2"}))
	testutil.Create(t, e.Client.StorageV1().CSINodes(), csiNode("n2", topologyKey1))
	next(2)
	// The listing that found the segment may be read before the sync that
	// made it has told: wait for the telling, then check it was once.
	e.Eventually(t, "told of the new segment", func() bool { return told.Load() >= 2 })
	if got := told.Load(); got != 2 {
		t.Errorf("told %d times after a new segment, want 2", got)
	}
}
