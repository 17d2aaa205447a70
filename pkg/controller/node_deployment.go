package controller

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
)

// NodeDeployment configures distributed provisioning (--node-deployment),
// with upstream external-provisioner's semantics: one sidecar per node, next
// to that node's CSI driver. A sidecar provisions only claims whose selected
// node is its own, deletes only PVs whose node affinity admits its node, and,
// for StorageClasses with Immediate binding, competes with the other nodes
// for claims that no node was selected for yet.
type NodeDeployment struct {
	// NodeName is the Kubernetes name of the node the sidecar runs on
	// (NODE_NAME).
	NodeName string
	// NodeInfo is the local driver's NodeGetInfo answer. Its accessible
	// topology is the only topology the sidecar knows: PVs whose node
	// affinity it satisfies are this node's, and CreateVolume requests are
	// built from it alone.
	NodeInfo *csi.NodeGetInfoResponse
	// ImmediateBinding lets the sidecar take claims of StorageClasses with
	// Immediate binding by selecting its own node for them.
	ImmediateBinding bool
	// BaseDelay is the initial wait before trying to take such a claim; it
	// is also the jitter, so a first attempt waits between zero and
	// BaseDelay. Each conflict on the same claim doubles the wait.
	BaseDelay time.Duration
	// MaxDelay caps the wait.
	MaxDelay time.Duration
}

// ErrOtherNode is returned, wrapped, by ReplayAndDelete for a claim whose
// CreateVolume another node's sidecar made: only that node's driver can
// hold its volume.
var ErrOtherNode = errors.New("the claim is provisioned by another node's sidecar")

func (nd *NodeDeployment) validate() error {
	switch {
	case nd.NodeName == "":
		return errors.New("node deployment needs the node name")
	case nd.NodeInfo == nil:
		return errors.New("node deployment needs the driver's NodeGetInfo answer")
	case nd.BaseDelay < 0 || nd.MaxDelay < nd.BaseDelay:
		return fmt.Errorf("node deployment needs 0 <= base delay (%s) <= max delay (%s)", nd.BaseDelay, nd.MaxDelay)
	}
	return nil
}

// nodeDeployment is the state of distributed provisioning.
type nodeDeployment struct {
	NodeDeployment
	// node is this node as the local driver describes it: its labels are
	// the driver's accessible topology.
	node    *v1.Node
	backoff *ownerBackoff
}

func newNodeDeployment(driverName string, nd NodeDeployment) *nodeDeployment {
	node, _ := localTopology(driverName, nd.NodeName, nd.NodeInfo)
	return &nodeDeployment{NodeDeployment: nd, node: node, backoff: newOwnerBackoff(nd.BaseDelay, nd.MaxDelay)}
}

// pollInterval is how often a sidecar waiting to take a claim looks whether
// another node took it meanwhile.
func (nd *nodeDeployment) pollInterval() time.Duration {
	return max(nd.BaseDelay/100, 10*time.Millisecond)
}

// LocalTopologyListers returns Node and CSINode listers that hold only this
// node, as the local driver describes it: a Node whose labels are the
// driver's accessible topology and a CSINode whose entry for driverName
// lists those topology keys. In node deployment they replace the cluster's
// listers (Options.NodeLister and CSINodeLister), so that CreateVolume
// requests are built from the local driver's information alone, and no
// Node is watched. New uses them when those listers are nil.
func LocalTopologyListers(driverName string, nodeName string, info *csi.NodeGetInfoResponse) (corelisters.NodeLister, storagelisters.CSINodeLister) {
	node, csiNode := localTopology(driverName, nodeName, info)
	nodes := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	csiNodes := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	// Adding to a fresh indexer with a valid key function cannot fail.
	_ = nodes.Add(node)
	_ = csiNodes.Add(csiNode)
	return corelisters.NewNodeLister(nodes), storagelisters.NewCSINodeLister(csiNodes)
}

func localTopology(driverName, nodeName string, info *csi.NodeGetInfoResponse) (*v1.Node, *storagev1.CSINode) {
	segments := info.GetAccessibleTopology().GetSegments()
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName, Labels: maps.Clone(segments)}}
	csiNode := &storagev1.CSINode{
		ObjectMeta: metav1.ObjectMeta{Name: nodeName},
		Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{
			Name:         driverName,
			NodeID:       info.GetNodeId(),
			TopologyKeys: slices.Sorted(maps.Keys(segments)),
		}}},
	}
	return node, csiNode
}

// ForgetClaim drops the back-off of a claim this sidecar tried to take. In
// node deployment the caller wires it, through OnClaimDelete, to the claim
// informer's delete handler; without node deployment it does nothing.
func (p *Provisioner) ForgetClaim(uid types.UID) {
	if p.node != nil {
		p.node.backoff.forget(uid)
	}
}

// OnClaimDelete is a claim informer's DeleteFunc that calls ForgetClaim,
// unwrapping a tombstone.
func (p *Provisioner) OnClaimDelete(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if claim, ok := obj.(*v1.PersistentVolumeClaim); ok {
		p.ForgetClaim(claim.UID)
	}
}
