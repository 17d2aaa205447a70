package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"

	"github.com/csi-protect/external-provisioner/pkg/csiconn"
)

// localNode is the node a sidecar runs on with --node-deployment, and its
// driver's view of it.
type localNode struct {
	// Name is the Kubernetes node name (NODE_NAME).
	Name string
	// Info is the driver's NodeGetInfo answer: its node id and topology.
	Info *csi.NodeGetInfoResponse
}

// newLocalNode reads NODE_NAME and asks the driver on the same socket
// where it runs.
func newLocalNode(ctx context.Context, conn grpc.ClientConnInterface, timeout time.Duration, getenv func(string) string) (*localNode, error) {
	name := getenv("NODE_NAME")
	if name == "" {
		return nil, errors.New("--node-deployment needs the NODE_NAME environment variable (the node's name, from the downward API)")
	}
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	info, err := csi.NewNodeClient(conn).NodeGetInfo(callCtx, &csi.NodeGetInfoRequest{})
	if err != nil {
		return nil, fmt.Errorf("--node-deployment needs the driver's node service on the same socket: NodeGetInfo: %w", err)
	}
	return &localNode{Name: name, Info: info}, nil
}

// name is the node's name, or "" for a central sidecar (nil).
func (n *localNode) name() string {
	if n == nil {
		return ""
	}
	return n.Name
}

// checkNodeDeployment refuses a driver whose volumes a node's sidecar could
// not tell from another node's: without topology every sidecar would take
// every PV for its own, and a DeleteVolume answered NotFound by the wrong
// node's driver would leak the volume on the right one.
func checkNodeDeployment(local *localNode, driver *csiconn.DriverInfo, topologyGate bool) error {
	switch {
	case !driver.SupportsTopology():
		return fmt.Errorf("--node-deployment needs a driver with the VOLUME_ACCESSIBILITY_CONSTRAINTS capability; %s has none", driver.Name)
	case len(local.Info.GetAccessibleTopology().GetSegments()) == 0:
		return fmt.Errorf("--node-deployment needs the driver's NodeGetInfo to report this node's accessible topology; %s reported none", driver.Name)
	case !topologyGate:
		return errors.New("--node-deployment needs --feature-gates=Topology=true: without it PVs get no node affinity, and a node's sidecar could not tell its volumes from another node's")
	}
	return nil
}
