package capacity

import (
	"slices"
	"testing"
)

func TestChurnReplacesTheLastNodesWithNewOnes(t *testing.T) {
	nodes := []string{"node-1", "node-2", "node-3", "node-4"}
	leave, join, after := churnNodes(nodes, 2, 4)
	if !slices.Equal(leave, []string{"node-3", "node-4"}) || !slices.Equal(join, []string{"node-5", "node-6"}) {
		t.Fatalf("leave %v, join %v; want node-3 and node-4 out, node-5 and node-6 in", leave, join)
	}
	if !slices.Equal(after, []string{"node-1", "node-2", "node-5", "node-6"}) {
		t.Fatalf("after %v", after)
	}
	if !slices.Equal(nodes, []string{"node-1", "node-2", "node-3", "node-4"}) {
		t.Fatalf("the nodes before were changed: %v", nodes)
	}
}
