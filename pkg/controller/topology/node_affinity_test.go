package topology

import (
	"reflect"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
)

func inTerm(kv ...string) v1.NodeSelectorTerm {
	var term v1.NodeSelectorTerm
	for i := 0; i < len(kv); i += 2 {
		term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{
			Key: kv[i], Operator: v1.NodeSelectorOpIn, Values: []string{kv[i+1]},
		})
	}
	return term
}

func TestNodeAffinity(t *testing.T) {
	tests := []struct {
		name     string
		segments []*csi.Topology
		want     []v1.NodeSelectorTerm // nil: no affinity
	}{
		{name: "no topology"},
		{name: "empty list", segments: []*csi.Topology{}},
		{
			name:     "only empty segments",
			segments: []*csi.Topology{nil, {}, {Segments: map[string]string{}}},
		},
		{
			name:     "one segment",
			segments: []*csi.Topology{{Segments: zone("z1")}},
			want:     []v1.NodeSelectorTerm{inTerm(zoneKey, "z1")},
		},
		{
			name: "segments become ORed terms in order, keys sorted",
			segments: []*csi.Topology{
				{Segments: zoneRack("z2", "r1")},
				{},
				{Segments: zone("z1")},
			},
			want: []v1.NodeSelectorTerm{
				inTerm(rackKey, "r1", zoneKey, "z2"),
				inTerm(zoneKey, "z1"),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NodeAffinity(tc.segments)
			if tc.want == nil {
				if got != nil {
					t.Fatalf("got %+v, want no affinity", got)
				}
				return
			}
			if got == nil || got.Required == nil {
				t.Fatalf("got %+v, want required terms %+v", got, tc.want)
			}
			if !reflect.DeepEqual(got.Required.NodeSelectorTerms, tc.want) {
				t.Errorf("terms:\n got %+v\nwant %+v", got.Required.NodeSelectorTerms, tc.want)
			}
		})
	}
}

func TestNodeAffinityMatchesOnlyNodesInSegments(t *testing.T) {
	// The affinity of a volume created with a requirement must admit the
	// nodes of its segments and no others.
	affinity := NodeAffinity([]*csi.Topology{{Segments: zoneRack("z1", "r1")}, {Segments: zone("z2")}})
	tests := []struct {
		labels map[string]string
		want   bool
	}{
		{zoneRack("z1", "r1"), true},
		{zoneRack("z2", "r9"), true},
		{zoneRack("z1", "r2"), false},
		{zone("z1"), false},
		{zone("z3"), false},
	}
	for _, tc := range tests {
		if got := matches(affinity, tc.labels); got != tc.want {
			t.Errorf("node %v matches: %v, want %v", tc.labels, got, tc.want)
		}
	}
}

// matches evaluates the In expressions that NodeAffinity produces.
func matches(affinity *v1.VolumeNodeAffinity, labels map[string]string) bool {
	for _, term := range affinity.Required.NodeSelectorTerms {
		ok := true
		for _, e := range term.MatchExpressions {
			v, has := labels[e.Key]
			ok = ok && e.Operator == v1.NodeSelectorOpIn && has && len(e.Values) == 1 && e.Values[0] == v
		}
		if ok {
			return true
		}
	}
	return false
}
