package framework

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"
)

// etcdOptions configures the cluster's etcd member.
type etcdOptions struct {
	binary      string
	workDir     string
	clientPort  int
	peerPort    int
	stopTimeout time.Duration
}

// startEtcd runs a single-member etcd on loopback and waits for /health. It
// returns the process and the client URL for kube-apiserver.
func startEtcd(ctx context.Context, opts etcdOptions) (*Process, string, error) {
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", opts.clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", opts.peerPort)
	proc, err := StartProcess(ctx, ProcessOptions{
		Name: "etcd",
		Path: opts.binary,
		Args: []string{
			"--name=e2e",
			"--data-dir=" + filepath.Join(opts.workDir, "etcd-data"),
			"--listen-client-urls=" + clientURL,
			"--advertise-client-urls=" + clientURL,
			// The peer URLs are spelled out so no default port (2380) is
			// bound: several clusters may run side by side.
			"--listen-peer-urls=" + peerURL,
			"--initial-advertise-peer-urls=" + peerURL,
			"--initial-cluster=e2e=" + peerURL,
			// Test data is thrown away; fsync only slows every write on
			// a small machine.
			"--unsafe-no-fsync=true",
		},
		LogFile:     filepath.Join(opts.workDir, "etcd.log"),
		StopTimeout: opts.stopTimeout,
	})
	if err != nil {
		return nil, "", err
	}
	client := &http.Client{Timeout: 2 * time.Second}
	if err := waitUntil(ctx, "etcd to report healthy", proc, httpOK(client, clientURL+"/health", "", `"health":"true"`)); err != nil {
		proc.Kill()
		return nil, "", err
	}
	return proc, clientURL, nil
}
