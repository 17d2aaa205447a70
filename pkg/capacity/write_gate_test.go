package capacity

import (
	"context"
	"slices"
	"sync"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	storagev1client "k8s.io/client-go/kubernetes/typed/storage/v1"
	k8stesting "k8s.io/client-go/testing"
)

// updateGate holds every CSIStorageCapacity update until the test lets it
// through, as a client whose rate limiter is spent does; one that waits
// gives up when its context ends, as the rate limiter's wait does. (A
// reactor cannot block: the fake clientset runs them under one lock,
// creates included.)
type updateGate struct {
	tokens chan struct{}
	opened chan struct{}
	once   sync.Once

	mu      sync.Mutex
	waiting int
	passed  []string // the node of each update let through, in order
}

func newUpdateGate() *updateGate {
	return &updateGate{tokens: make(chan struct{}), opened: make(chan struct{})}
}

func (g *updateGate) wait(ctx context.Context, obj *storagev1.CSIStorageCapacity) error {
	g.mu.Lock()
	g.waiting++
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
	}()
	select {
	case <-g.tokens:
	case <-g.opened:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.mu.Lock()
	g.passed = append(g.passed, nodeOf(obj))
	g.mu.Unlock()
	return nil
}

// waiters is the number of updates held now.
func (g *updateGate) waiters() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}

// letOne lets one held update through; one must be waiting.
func (g *updateGate) letOne() { g.tokens <- struct{}{} }

// open lets every update through from now on.
func (g *updateGate) open() { g.once.Do(func() { close(g.opened) }) }

func (g *updateGate) order() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.passed)
}

// gatedClient is the fake clientset with updates of CSIStorageCapacities
// going through a gate.
type gatedClient struct {
	*fake.Clientset
	gate *updateGate
}

func (c gatedClient) StorageV1() storagev1client.StorageV1Interface {
	return gatedStorage{StorageV1Interface: c.Clientset.StorageV1(), gate: c.gate}
}

type gatedStorage struct {
	storagev1client.StorageV1Interface
	gate *updateGate
}

func (s gatedStorage) CSIStorageCapacities(namespace string) storagev1client.CSIStorageCapacityInterface {
	return gatedCapacities{CSIStorageCapacityInterface: s.StorageV1Interface.CSIStorageCapacities(namespace), gate: s.gate}
}

type gatedCapacities struct {
	storagev1client.CSIStorageCapacityInterface
	gate *updateGate
}

func (g gatedCapacities) Update(ctx context.Context, obj *storagev1.CSIStorageCapacity, opts metav1.UpdateOptions) (*storagev1.CSIStorageCapacity, error) {
	if err := g.gate.wait(ctx, obj); err != nil {
		return nil, err
	}
	return g.CSIStorageCapacityInterface.Update(ctx, obj, opts)
}

// updateCounter counts the CSIStorageCapacity updates the fake API
// received, by node.
type updateCounter struct {
	mu     sync.Mutex
	byNode map[string]int
}

func countUpdates(client *fake.Clientset) *updateCounter {
	u := &updateCounter{byNode: map[string]int{}}
	client.PrependReactor("update", "csistoragecapacities", func(action k8stesting.Action) (bool, runtime.Object, error) {
		obj := action.(k8stesting.UpdateAction).GetObject().(*storagev1.CSIStorageCapacity)
		u.mu.Lock()
		defer u.mu.Unlock()
		u.byNode[nodeOf(obj)]++
		return false, nil, nil
	})
	return u
}

func (u *updateCounter) of(node string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.byNode[node]
}

func (u *updateCounter) total() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := 0
	for _, v := range u.byNode {
		n += v
	}
	return n
}

func nodeOf(obj *storagev1.CSIStorageCapacity) string {
	if obj.NodeTopology == nil {
		return ""
	}
	return obj.NodeTopology.MatchLabels[topologyKey1]
}
