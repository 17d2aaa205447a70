package topology

import (
	"maps"
	"slices"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
)

// NodeAffinity turns the accessible topology of a created volume into the
// node affinity of its PV: one node selector term per segment (the terms
// are ORed), one "key In [value]" expression per key (ANDed). It returns nil
// when no segment has any key, because a required node selector without
// terms would make the PV invalid.
func NodeAffinity(segments []*csi.Topology) *v1.VolumeNodeAffinity {
	var terms []v1.NodeSelectorTerm
	for _, topology := range segments {
		segs := topology.GetSegments()
		if len(segs) == 0 {
			continue
		}
		// Map order is random; sorted keys keep the PV spec stable.
		keys := slices.Sorted(maps.Keys(segs))
		exprs := make([]v1.NodeSelectorRequirement, 0, len(keys))
		for _, k := range keys {
			exprs = append(exprs, v1.NodeSelectorRequirement{
				Key:      k,
				Operator: v1.NodeSelectorOpIn,
				Values:   []string{segs[k]},
			})
		}
		terms = append(terms, v1.NodeSelectorTerm{MatchExpressions: exprs})
	}
	if len(terms) == 0 {
		return nil
	}
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: terms}}
}
