package capacity

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// objectWatch keeps what kube-apiserver publishes, through a watch of the
// driver's CSIStorageCapacity objects, and when each change arrived: the
// phases judge convergence by the arrival of the last change, to the
// millisecond, instead of by how often they look.
type objectWatch struct {
	mu        sync.Mutex
	byName    map[string]*storagev1.CSIStorageCapacity
	lastEvent time.Time
}

// watchObjects starts the watch of the objects in namespace with the
// driver's label, and returns once it has listed them.
func watchObjects(ctx context.Context, client kubernetes.Interface, namespace, driver string) (*objectWatch, error) {
	w := &objectWatch{byName: map[string]*storagev1.CSIStorageCapacity{}}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = labels.SelectorFromSet(labels.Set{framework.CapacityDriverLabel: driver}).String()
		}))
	inf := factory.Storage().V1().CSIStorageCapacities().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.set,
		UpdateFunc: func(_, obj any) { w.set(obj) },
		DeleteFunc: w.remove,
	}); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("watch of CSIStorageCapacity objects did not sync: %w", context.Cause(ctx))
	}
	return w, nil
}

func (w *objectWatch) set(obj any) {
	c, ok := obj.(*storagev1.CSIStorageCapacity)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.byName[c.Name] = c
	w.lastEvent = time.Now()
}

func (w *objectWatch) remove(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	c, ok := obj.(*storagev1.CSIStorageCapacity)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.byName, c.Name)
	w.lastEvent = time.Now()
}

// snapshot is what is published now.
func (w *objectWatch) snapshot() published {
	w.mu.Lock()
	objects := maps.Clone(w.byName)
	last := w.lastEvent
	w.mu.Unlock()
	return index(objects, last)
}

// index turns the objects into capacities by class and segment.
func index(objects map[string]*storagev1.CSIStorageCapacity, lastEvent time.Time) published {
	p := published{capacity: make(map[framework.CapacityKey]int64, len(objects)), lastEvent: lastEvent}
	for _, c := range objects {
		segment, ok := framework.CapacitySegment(c, mockdriver.TopologyKey)
		if !ok {
			p.odd++
			continue
		}
		k := framework.CapacityKey{Class: c.StorageClassName, Segment: segment}
		if _, dup := p.capacity[k]; dup {
			p.duplicates++
			continue
		}
		var v int64
		if c.Capacity != nil {
			v = c.Capacity.Value()
		}
		p.capacity[k] = v
	}
	return p
}
