package library

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

func TestTheLibrarysNodeLookupNeverFails(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	known := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"zone": "a"}}}
	if err := indexer.Add(known); err != nil {
		t.Fatal(err)
	}
	for name, nodes := range map[string]corelisters.NodeLister{"a lister": corelisters.NewNodeLister(indexer), "no lister": nil} {
		lister := New(Options{Nodes: nodes}).NodesLister()
		got, err := lister.Get("node-1")
		if err != nil || got.Name != "node-1" || (nodes != nil && got.Labels["zone"] != "a") {
			t.Errorf("%s: node-1 is %v, %v; want the lister's", name, got, err)
		}
		gone, err := lister.Get("node-gone")
		if err != nil || gone.Name != "node-gone" || len(gone.Labels) != 0 {
			t.Errorf("%s: a missing node is %v, %v; want one of that name without labels", name, gone, err)
		}
		listed, err := lister.List(labels.Everything())
		if err != nil || (nodes != nil && len(listed) != 1) || (nodes == nil && len(listed) != 0) {
			t.Errorf("%s: List gave %v, %v", name, listed, err)
		}
	}
}
