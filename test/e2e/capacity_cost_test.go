//go:build e2e

package e2e

import (
	"fmt"
	"maps"
	"testing"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// capacityCostClaims is how many volumes the cost of capacity tracking is
// measured over.
const capacityCostClaims = 12

// Capacity tracking writes at most one update per object a volume
// changes, and nothing else: with one class, at most one write per volume
// created or deleted (two creates on a segment before its refresh share
// one). Counted from the audit log; the figures are logged for
// docs/bench/e2e-figures.md.
func TestCapacityWritesPerVolume(t *testing.T) {
	ctx, s, nodes := startCapacityStack(t, capacitySetup{poll: pollForever})
	createStorageClass(ctx, t, s, classWFFC, waitForFirstConsumer)
	all := everywhere([]string{classWFFC}, nodes, freeSpace(segmentCapacity))
	waitForCapacityObjects(ctx, t, s, centralSidecar, all)
	start := capacityWrites(t, s)
	if start["create"] != len(nodes) {
		t.Errorf("%d creates for %d objects", start["create"], len(nodes))
	}

	used := map[string]int64{}
	var names []string
	for i := range capacityCostClaims {
		name := fmt.Sprintf("cost-%d", i)
		node := nodes[i%len(nodes)]
		createClaim(ctx, t, s, "default", name, classWFFC)
		selectNode(ctx, t, s, "default", name, node)
		used[node] += claimBytes
		names = append(names, name)
	}
	var volumes []string
	for _, name := range names {
		_, pv := waitForClaimBound(ctx, t, s, "default", name)
		volumes = append(volumes, pv.Name)
	}
	full := maps.Clone(all)
	for node, bytes := range used {
		full[framework.CapacityKey{Class: classWFFC, Segment: node}] = freeSpace(segmentCapacity - bytes)
	}
	waitForCapacityObjects(ctx, t, s, centralSidecar, full)
	created := capacityWrites(t, s)

	for _, name := range names {
		deleteClaim(ctx, t, s, "default", name)
	}
	for _, pv := range volumes {
		waitForPVGone(ctx, t, s, pv)
	}
	waitForCapacityObjects(ctx, t, s, centralSidecar, all)
	deleted := capacityWrites(t, s)

	perCreate := float64(created["update"]-start["update"]) / capacityCostClaims
	perDelete := float64(deleted["update"]-created["update"]) / capacityCostClaims
	t.Logf("capacity writes per volume: %.2f updates per volume created, %.2f per volume deleted (%d volumes, %d objects); all writes: start %v, after creates %v, after deletes %v",
		perCreate, perDelete, capacityCostClaims, len(nodes), start, created, deleted)
	if perCreate <= 0 || perCreate > 1 || perDelete <= 0 || perDelete > 1 {
		t.Errorf("want between 0 and 1 update per volume with one class, got %.2f per create and %.2f per delete", perCreate, perDelete)
	}
	if deleted["create"] != start["create"] || deleted["delete"] != 0 {
		t.Errorf("objects were created or deleted while only capacities changed: %v", deleted)
	}
}

// capacityWrites counts the sidecar's writes of CSIStorageCapacity objects
// by verb.
func capacityWrites(t *testing.T, s *framework.Stack) map[string]int {
	t.Helper()
	events, err := sidecarAuditEvents(s)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, ev := range events {
		if ev.ObjectRef == nil || ev.ObjectRef.Resource != "csistoragecapacities" {
			continue
		}
		switch ev.Verb {
		case "create", "update", "patch", "delete":
			out[ev.Verb]++
		}
	}
	return out
}
