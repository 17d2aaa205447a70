package controller

import (
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
)

func TestVolumeAccessible(t *testing.T) {
	here := &csi.Topology{Segments: map[string]string{nodeKey: ownNode, "zone": "z1"}}
	expr := func(key string, op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirement {
		return v1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	affinity := func(terms ...v1.NodeSelectorTerm) *v1.VolumeNodeAffinity {
		return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: terms}}
	}
	for name, tc := range map[string]struct {
		affinity *v1.VolumeNodeAffinity
		topology *csi.Topology
		want     bool
		wantErr  bool
	}{
		"no affinity":         {topology: here, want: true},
		"no required":         {affinity: &v1.VolumeNodeAffinity{}, topology: here, want: true},
		"driver without topo": {affinity: affinity(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{expr(nodeKey, v1.NodeSelectorOpIn, otherNode)}}), want: true},
		"this node":           {affinity: affinity(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{expr(nodeKey, v1.NodeSelectorOpIn, ownNode)}}), topology: here, want: true},
		"other node":          {affinity: affinity(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{expr(nodeKey, v1.NodeSelectorOpIn, otherNode)}}), topology: here},
		"terms are ORed": {affinity: affinity(
			v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{expr(nodeKey, v1.NodeSelectorOpIn, otherNode)}},
			v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{expr("zone", v1.NodeSelectorOpIn, "z1")}},
		), topology: here, want: true},
		"expressions are ANDed": {affinity: affinity(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
			expr(nodeKey, v1.NodeSelectorOpIn, ownNode), expr("zone", v1.NodeSelectorOpNotIn, "z1"),
		}}), topology: here},
		"exists":           {affinity: affinity(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{expr("zone", v1.NodeSelectorOpExists)}}), topology: here, want: true},
		"empty term":       {affinity: affinity(v1.NodeSelectorTerm{}), topology: here},
		"node name field":  {affinity: affinity(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{expr("metadata.name", v1.NodeSelectorOpIn, ownNode)}}), topology: here, want: true},
		"other name field": {affinity: affinity(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{expr("metadata.name", v1.NodeSelectorOpIn, otherNode)}}), topology: here},
		"invalid term alone": {affinity: affinity(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{expr(nodeKey, "Near", ownNode)}}),
			topology: here, wantErr: true},
		"invalid term beside a match": {affinity: affinity(
			v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{expr(nodeKey, "Near", ownNode)}},
			v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{expr(nodeKey, v1.NodeSelectorOpIn, ownNode)}},
		), topology: here, want: true},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := volumeAccessible(tc.affinity, ownNode, tc.topology)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Fatalf("accessible %v, err %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
