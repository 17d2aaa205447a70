package library

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// NodesLister returns the Node lister to give the library (its
// NodesLister option). Library v10 looks a claim's selected node up before
// its Provisioning event and, when the Node is missing, sends the claim
// back to the scheduler with an event of its own (`node "X" not found`);
// without a lister it asks the API server. Library v13, upstream's, hands
// Provision the node's name alone, and only topology reads the node. So
// this lister never fails and never calls the API server: it gives the
// Node from Options.Nodes when that has it, else a Node of that name
// without labels. A missing node then fails in Provision as upstream's
// does: the selected node's CSINode, or its topology labels, with
// topology; nothing without.
func (a *Adapter) NodesLister() corelisters.NodeLister {
	return libraryNodes{nodes: a.opts.Nodes}
}

type libraryNodes struct {
	// nodes is nil when nothing reads the nodes' topology.
	nodes corelisters.NodeLister
}

func (l libraryNodes) Get(name string) (*v1.Node, error) {
	if l.nodes != nil {
		if node, err := l.nodes.Get(name); err == nil {
			return node, nil
		}
	}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
}

// List is not called by the library.
func (l libraryNodes) List(selector labels.Selector) ([]*v1.Node, error) {
	if l.nodes == nil {
		return nil, nil
	}
	return l.nodes.List(selector)
}
