package topology

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

const (
	driver  = "disk.csi.example.com"
	zoneKey = "topology.example.com/zone"
	rackKey = "topology.example.com/rack"
)

// seg builds a segment from key, value pairs.
func seg(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func zone(z string) map[string]string        { return seg(zoneKey, z) }
func zoneRack(z, r string) map[string]string { return seg(zoneKey, z, rackKey, r) }
func nodeObj(name string, labels map[string]string) *v1.Node {
	return testutil.NewNode(name, testutil.WithLabels(labels))
}

// csiNodeObj builds a CSINode with one entry per driver name and its keys.
func csiNodeObj(name string, drivers map[string][]string) *storagev1.CSINode {
	return testutil.NewCSINode(name, drivers)
}

// cluster is the state seen through the listers.
type cluster struct {
	nodes    []*v1.Node
	csiNodes []*storagev1.CSINode
}

// zonalCluster has one node per label set, named n0, n1, ... in order, each
// with the driver registered with keys.
func zonalCluster(keys []string, labels ...map[string]string) cluster {
	var c cluster
	for i, l := range labels {
		name := fmt.Sprintf("n%d", i)
		c.nodes = append(c.nodes, nodeObj(name, l))
		c.csiNodes = append(c.csiNodes, csiNodeObj(name, map[string][]string{driver: keys}))
	}
	return c
}

func (c cluster) node(t *testing.T, name string) *v1.Node {
	t.Helper()
	for _, n := range c.nodes {
		if n.Name == name {
			return n
		}
	}
	t.Fatalf("test cluster has no node %q", name)
	return nil
}

// request returns a Request for driver with listers over c.
func (c cluster) request(t *testing.T) Request {
	t.Helper()
	return Request{
		DriverName: driver,
		PVName:     "pvc-1",
		CSINodes:   storagelisters.NewCSINodeLister(testutil.Indexer(t, c.csiNodes...)),
		Nodes:      corelisters.NewNodeLister(testutil.Indexer(t, c.nodes...)),
	}
}

func testContext(t *testing.T) context.Context {
	_, ctx := ktesting.NewTestContext(t)
	return ctx
}

func segmentsOf(topologies []*csi.Topology) []map[string]string {
	out := []map[string]string{}
	for _, tp := range topologies {
		out = append(out, tp.GetSegments())
	}
	return out
}

// mustRequire runs Requirements, expecting success and a requirement.
func mustRequire(t *testing.T, req Request) (requisite, preferred []map[string]string) {
	t.Helper()
	got, err := Requirements(testContext(t), req)
	if err != nil {
		t.Fatalf("Requirements: unexpected error: %v", err)
	}
	if got == nil {
		t.Fatal("Requirements returned no requirement, want one")
	}
	return segmentsOf(got.Requisite), segmentsOf(got.Preferred)
}

func expectSegments(t *testing.T, what string, got, want []map[string]string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}
