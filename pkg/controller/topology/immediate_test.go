package topology

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

func TestImmediateWithoutTopologyFlagHasNoRequirement(t *testing.T) {
	c := zonalCluster([]string{zoneKey}, zone("z1"), zone("z2"))
	req := c.request(t)

	got, err := Requirements(testContext(t), req)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != nil {
		t.Errorf("got requirement %v, want none", got)
	}
}

func TestImmediateTopologyAggregatesAllNodes(t *testing.T) {
	c := zonalCluster([]string{zoneKey},
		zone("z3"), zone("z1"), zone("z3"), zone("z2"),
		seg("other", "x"), // lacks the zone key
	)
	req := c.request(t)
	req.ImmediateTopology = true

	requisite, preferred := mustRequire(t, req)

	expectSegments(t, "requisite", requisite, []map[string]string{zone("z1"), zone("z2"), zone("z3")})
	if len(preferred) != len(requisite) {
		t.Fatalf("preferred %v is not a rotation of requisite %v", preferred, requisite)
	}
	expectSegments(t, "preferred", preferred, rotated(requisite, preferred[0]))
}

func TestImmediateTopologyTakesKeysFromRegisteredCSINodes(t *testing.T) {
	c := cluster{
		nodes: []*v1.Node{
			nodeObj("a", zoneRack("z1", "r1")),
			nodeObj("b", zoneRack("z2", "r2")),
			nodeObj("c", zone("z3")),
		},
		csiNodes: []*storagev1.CSINode{
			csiNodeObj("a", map[string][]string{"other.csi.example.com": {rackKey}}),
			csiNodeObj("b", map[string][]string{driver: nil}), // registered without topology
			csiNodeObj("c", map[string][]string{driver: {zoneKey}}),
		},
	}
	req := c.request(t)
	req.ImmediateTopology = true

	requisite, _ := mustRequire(t, req)

	// Keys from c's CSINode, values from every node labelled with them.
	expectSegments(t, "requisite", requisite, []map[string]string{zone("z1"), zone("z2"), zone("z3")})
}

func TestImmediateTopologyKeysFromFirstCSINodeByName(t *testing.T) {
	// Nodes disagree on the keys; the first CSINode by name decides, not
	// the lister's order.
	c := cluster{
		nodes: []*v1.Node{
			nodeObj("a", zoneRack("z1", "r1")),
			nodeObj("b", zoneRack("z2", "r2")),
		},
		csiNodes: []*storagev1.CSINode{
			csiNodeObj("b", map[string][]string{driver: {zoneKey}}),
			csiNodeObj("a", map[string][]string{driver: {zoneKey, rackKey}}),
		},
	}
	req := c.request(t)
	req.ImmediateTopology = true

	for range 10 {
		requisite, _ := mustRequire(t, req)
		expectSegments(t, "requisite", requisite, []map[string]string{zoneRack("z1", "r1"), zoneRack("z2", "r2")})
	}
}

func TestImmediatePreferredRotationIsDeterministic(t *testing.T) {
	c := zonalCluster([]string{zoneKey}, zone("z1"), zone("z2"), zone("z3"), zone("z4"), zone("z5"))
	req := c.request(t)
	req.ImmediateTopology = true

	firsts := map[string]bool{}
	for i := range 20 {
		req.PVName = fmt.Sprintf("pvc-%d-volume", i)
		_, want := mustRequire(t, req)
		for range 5 {
			_, got := mustRequire(t, req)
			expectSegments(t, "preferred of "+req.PVName, got, want)
		}
		firsts[want[0][zoneKey]] = true
	}
	// The point of the rotation: different volumes prefer different zones.
	if len(firsts) < 2 {
		t.Errorf("20 volume names all prefer the same zone %v", firsts)
	}
}

func TestImmediatePreferredSpreadsStatefulSetReplicas(t *testing.T) {
	c := zonalCluster([]string{zoneKey}, zone("z1"), zone("z2"), zone("z3"))
	req := c.request(t)
	req.ImmediateTopology = true
	first := func(name string) string {
		t.Helper()
		req.PVName = name
		_, preferred := mustRequire(t, req)
		return preferred[0][zoneKey]
	}

	// Consecutive replicas go round-robin over the sorted zones.
	zones := []string{"z1", "z2", "z3"}
	start := first("data-web-0")
	offset := map[string]int{"z1": 0, "z2": 1, "z3": 2}[start]
	for i := 1; i < 6; i++ {
		want := zones[(offset+i)%3]
		if got := first(fmt.Sprintf("data-web-%d", i)); got != want {
			t.Errorf("replica %d prefers %s, want %s (replica 0 prefers %s)", i, got, want, start)
		}
	}

	// All claims of one replica prefer the same zone, so its pod can mount them.
	for i := range 6 {
		data, logs := first(fmt.Sprintf("data-web-%d", i)), first(fmt.Sprintf("logs-web-%d", i))
		if data != logs {
			t.Errorf("replica %d: data volume prefers %s, logs volume %s", i, data, logs)
		}
	}
}

func TestSpreadOffset(t *testing.T) {
	tests := []struct {
		name, a, b string
		same       bool
	}{
		{"claims of one replica", "data-web-2", "logs-web-2", true},
		{"claim prefix with dashes", "my-data-web-2", "web-2", true},
		{"next replica", "data-web-2", "data-web-3", false},
		{"other StatefulSet", "data-web-2", "data-db-2", false},
		{"no ordinal: whole name hashed", "data-web-x", "logs-web-x", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := spreadOffset(tc.a), spreadOffset(tc.b)
			if (a == b) != tc.same {
				t.Errorf("spreadOffset(%q)=%d, spreadOffset(%q)=%d, want equal: %v", tc.a, a, tc.b, b, tc.same)
			}
		})
	}
	if d := spreadOffset("data-web-3") - spreadOffset("data-web-2"); d != 1 {
		t.Errorf("consecutive ordinals differ by %d, want 1", d)
	}
}

// rotated returns segs rotated to start at first.
func rotated(segs []map[string]string, first map[string]string) []map[string]string {
	for i, s := range segs {
		if fmt.Sprint(s) == fmt.Sprint(first) {
			return append(append([]map[string]string{}, segs[i:]...), segs[:i]...)
		}
	}
	return nil
}
