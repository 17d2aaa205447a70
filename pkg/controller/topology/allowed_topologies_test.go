package topology

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// allowed builds one allowedTopologies term from key, values pairs.
func allowed(exprs ...v1.TopologySelectorLabelRequirement) v1.TopologySelectorTerm {
	return v1.TopologySelectorTerm{MatchLabelExpressions: exprs}
}

func in(key string, values ...string) v1.TopologySelectorLabelRequirement {
	return v1.TopologySelectorLabelRequirement{Key: key, Values: values}
}

func TestAllowedTopologiesAreExpanded(t *testing.T) {
	tests := []struct {
		name    string
		allowed []v1.TopologySelectorTerm
		want    []map[string]string
	}{
		{
			name:    "one key, several values",
			allowed: []v1.TopologySelectorTerm{allowed(in(zoneKey, "z2", "z1"))},
			want:    []map[string]string{zone("z1"), zone("z2")},
		},
		{
			name:    "cartesian product across keys",
			allowed: []v1.TopologySelectorTerm{allowed(in(zoneKey, "z1", "z2"), in(rackKey, "r1", "r2"))},
			want: []map[string]string{
				zoneRack("z1", "r1"), zoneRack("z2", "r1"),
				zoneRack("z1", "r2"), zoneRack("z2", "r2"),
			},
		},
		{
			name: "terms are ORed and duplicates dropped",
			allowed: []v1.TopologySelectorTerm{
				allowed(in(zoneKey, "z1")),
				allowed(in(zoneKey, "z3", "z1")),
				allowed(in(zoneKey, "z1"), in(rackKey, "r1")),
			},
			// Shorter segments sort first.
			want: []map[string]string{zone("z1"), zone("z3"), zoneRack("z1", "r1")},
		},
		{
			name: "segments sort by key before value",
			allowed: []v1.TopologySelectorTerm{
				allowed(in(zoneKey, "a")),
				allowed(in(rackKey, "z")),
			},
			want: []map[string]string{seg(rackKey, "z"), seg(zoneKey, "a")},
		},
		{
			name: "empty term adds nothing",
			allowed: []v1.TopologySelectorTerm{
				allowed(),
				allowed(in(zoneKey, "z1")),
			},
			want: []map[string]string{zone("z1")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The cluster's own topology must not leak into the request.
			c := zonalCluster([]string{zoneKey}, zone("z9"))
			req := c.request(t)
			req.AllowedTopologies = tc.allowed
			req.ImmediateTopology = true

			requisite, preferred := mustRequire(t, req)

			expectSegments(t, "requisite", requisite, tc.want)
			expectSegments(t, "preferred", preferred, rotated(requisite, preferred[0]))
		})
	}
}

func TestAllowedTopologiesApplyWithoutImmediateTopology(t *testing.T) {
	req := cluster{}.request(t)
	req.AllowedTopologies = []v1.TopologySelectorTerm{allowed(in(zoneKey, "z1"))}

	requisite, preferred := mustRequire(t, req)

	expectSegments(t, "requisite", requisite, []map[string]string{zone("z1")})
	expectSegments(t, "preferred", preferred, []map[string]string{zone("z1")})
}

func TestAllowedTopologiesWithoutSegmentsMeanNoRequirement(t *testing.T) {
	c := zonalCluster([]string{zoneKey}, zone("z1"))
	req := c.request(t)
	req.AllowedTopologies = []v1.TopologySelectorTerm{allowed()}
	req.SelectedNode = c.node(t, "n0")

	got, err := Requirements(testContext(t), req)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != nil {
		t.Errorf("got requirement %v, want none", got)
	}
}

func TestAllowedTopologiesWithSelectedNode(t *testing.T) {
	// The class names only zones; the driver also uses racks.
	c := zonalCluster([]string{zoneKey, rackKey}, zoneRack("z1", "r1"), zoneRack("z2", "r2"), zoneRack("z3", "r3"))
	req := c.request(t)
	req.AllowedTopologies = []v1.TopologySelectorTerm{allowed(in(zoneKey, "z1", "z2"))}
	req.SelectedNode = c.node(t, "n1")

	requisite, preferred := mustRequire(t, req)

	// Requisite is what the class allows, not what nodes offer (no z3);
	// preferred starts with the allowed segment holding the selected node.
	expectSegments(t, "requisite", requisite, []map[string]string{zone("z1"), zone("z2")})
	expectSegments(t, "preferred", preferred, []map[string]string{zone("z2"), zone("z1")})
}

func TestAllowedTopologiesWithStrictTopology(t *testing.T) {
	c := zonalCluster([]string{zoneKey, rackKey}, zoneRack("z1", "r1"), zoneRack("z2", "r2"))
	req := c.request(t)
	req.AllowedTopologies = []v1.TopologySelectorTerm{
		allowed(in(zoneKey, "z3")),
		allowed(in(zoneKey, "z2")),
	}
	req.SelectedNode = c.node(t, "n1")
	req.StrictTopology = true

	requisite, preferred := mustRequire(t, req)

	// The allowed zone is completed with the selected node's rack.
	want := []map[string]string{zoneRack("z2", "r2")}
	expectSegments(t, "requisite", requisite, want)
	expectSegments(t, "preferred", preferred, want)
}
