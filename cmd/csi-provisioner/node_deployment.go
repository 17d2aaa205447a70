package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
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
