package library

import (
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestTheLibrarysNodeLookupNeverFails(t *testing.T) {
	indexer := testutil.Indexer(t, testutil.NewNode("node-1", testutil.WithLabel("zone", "a")))
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
