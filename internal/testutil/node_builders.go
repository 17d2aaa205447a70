package testutil

import (
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// NewPod is a pod that is not scheduled and has no volume.
func NewPod(namespace, name string, opts ...PodOption) *v1.Pod {
	p := &v1.Pod{ObjectMeta: objectMeta(namespace, name)}
	for _, o := range opts {
		o.applyToPod(p)
	}
	return p
}

// OnNode is a pod scheduled to node.
func OnNode(node string) PodFunc {
	return func(p *v1.Pod) { p.Spec.NodeName = node }
}

// UsingClaims adds a volume of each claim to the pod, named "vola",
// "volb"... in order.
func UsingClaims(claims ...string) PodFunc {
	return func(p *v1.Pod) {
		for _, c := range claims {
			p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{
				Name:         "vol" + string(rune('a'+len(p.Spec.Volumes))),
				VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: c}},
			})
		}
	}
}

// NewNode is a Node without labels.
func NewNode(name string, opts ...MetaOption) *v1.Node {
	n := &v1.Node{ObjectMeta: objectMeta("", name)}
	applyMeta(&n.ObjectMeta, opts)
	return n
}

// NewCSINode is the CSINode of node, on which each of drivers registered
// with its topology keys, in the order of their names.
func NewCSINode(node string, drivers map[string][]string, opts ...MetaOption) *storagev1.CSINode {
	n := &storagev1.CSINode{ObjectMeta: objectMeta("", node)}
	for _, d := range slices.Sorted(maps.Keys(drivers)) {
		n.Spec.Drivers = append(n.Spec.Drivers, storagev1.CSINodeDriver{Name: d, NodeID: node, TopologyKeys: slices.Clone(drivers[d])})
	}
	applyMeta(&n.ObjectMeta, opts)
	return n
}

// NewSecret is a Secret holding data.
func NewSecret(namespace, name string, data map[string]string, opts ...MetaOption) *v1.Secret {
	s := &v1.Secret{ObjectMeta: objectMeta(namespace, name), Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	applyMeta(&s.ObjectMeta, opts)
	return s
}
