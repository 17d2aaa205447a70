package main

import (
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"

	"github.com/csi-protect/external-provisioner/pkg/csiconn"
)

func TestNodeDeploymentNeedsATopologyToTellNodesApart(t *testing.T) {
	withTopology := &csiconn.DriverInfo{Name: "d", PluginCapabilities: rpc.PluginCapabilitySet{
		csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS: true,
	}}
	withoutTopology := &csiconn.DriverInfo{Name: "d", PluginCapabilities: rpc.PluginCapabilitySet{}}
	located := &localNode{Name: "n1", Info: &csi.NodeGetInfoResponse{NodeId: "n1",
		AccessibleTopology: &csi.Topology{Segments: map[string]string{"zone": "n1"}}}}
	unlocated := &localNode{Name: "n1", Info: &csi.NodeGetInfoResponse{NodeId: "n1"}}

	for _, tc := range []struct {
		name   string
		local  *localNode
		driver *csiconn.DriverInfo
		gate   bool
		want   string
	}{
		{"all there", located, withTopology, true, ""},
		{"driver without the capability", located, withoutTopology, true, "VOLUME_ACCESSIBILITY_CONSTRAINTS"},
		{"node without topology", unlocated, withTopology, true, "accessible topology"},
		{"Topology gate off", located, withTopology, false, "Topology=true"},
	} {
		err := checkNodeDeployment(tc.local, tc.driver, tc.gate)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}
