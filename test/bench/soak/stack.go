package soak

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const (
	namespace    = "default"
	storageClass = "soak"
	// goldenClaim is the source of every clone the churn makes; it lives
	// for the whole run.
	goldenClaim = "soak-golden"
	replicas    = 2
	// retryIntervalMax keeps a claim that failed during a fault from
	// waiting upstream's 5 minutes before its next try.
	retryIntervalMax = 30 * time.Second
)

// startStack starts the control plane with every request audited and
// kube-apiserver's watch cache off, so that informers watch etcd itself and
// a compaction reaches them as 410 Gone; the mock driver with a slow,
// caller-outliving CreateVolume; and the sidecar's RBAC, but no sidecar yet.
func startStack(ctx context.Context, o Options) (*framework.Stack, error) {
	return framework.StartStack(ctx, framework.StackOptions{
		BinDir:  o.BinDir,
		WorkDir: filepath.Join(o.OutDir, "work"),
		Cluster: framework.ClusterOptions{
			BinDir:        o.ControlPlaneDir,
			AuditLog:      true,
			APIServerArgs: []string{"--watch-cache=false"},
		},
		Driver: framework.DriverOptions{
			CreateDelay:          o.CreateDelay,
			DeleteDelay:          o.CreateDelay / 4,
			CreateOutlivesCaller: true,
		},
		Sidecar: framework.SidecarOptions{Deferred: true},
	})
}

// replica is one csi-provisioner process, which reaches kube-apiserver
// through a proxy of its own so that a fault can cut it off.
type replica struct {
	proc       *framework.Process
	proxy      *framework.TCPProxy
	metricsURL string
}

// startReplicas starts the leader-electing replicas under the shipped RBAC,
// each through its proxy, with its metrics on a port of its own. The
// client limits are the defaults (5 QPS, burst 10): the churn needs more,
// so the sidecars run throttled throughout.
func startReplicas(ctx context.Context, s *framework.Stack) ([]*replica, error) {
	apiserver, err := url.Parse(s.Cluster().Host())
	if err != nil {
		return nil, err
	}
	var out []*replica
	for i := range replicas {
		proxy, err := framework.StartTCPProxy(apiserver.Host)
		if err != nil {
			return nil, err
		}
		kubeconfig, err := proxiedKubeconfig(s, proxy, i)
		if err != nil {
			return nil, err
		}
		port, err := framework.FreePort()
		if err != nil {
			return nil, err
		}
		proc, err := s.StartSidecar(ctx, framework.SidecarOptions{
			LeaderElection: &framework.LeaderElectionOptions{},
			ExtraArgs: []string{
				fmt.Sprintf("--http-endpoint=127.0.0.1:%d", port),
				// Heap profiles of the leader, to tell a leak from a
				// cache filling up.
				"--enable-pprof",
				"--retry-interval-max=" + retryIntervalMax.String(),
				// The audit reports what the churn leaves unaccounted
				// for while it runs, not only at the end.
				"--orphan-audit-interval=1m",
				"--orphan-audit-grace-period=3m",
			},
			// $KUBECONFIG wins over --kubeconfig, as upstream's.
			Env: []string{"KUBECONFIG=" + kubeconfig},
		})
		if err != nil {
			return nil, err
		}
		out = append(out, &replica{proc: proc, proxy: proxy, metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", port)})
	}
	return out, nil
}

// proxiedKubeconfig copies the sidecar's kubeconfig with the proxy as its
// server.
func proxiedKubeconfig(s *framework.Stack, proxy *framework.TCPProxy, i int) (string, error) {
	cfg, err := clientcmd.LoadFromFile(s.RBAC().Kubeconfig)
	if err != nil {
		return "", err
	}
	for _, cluster := range cfg.Clusters {
		u, err := url.Parse(cluster.Server)
		if err != nil {
			return "", err
		}
		u.Host = proxy.Addr()
		cluster.Server = u.String()
	}
	path := filepath.Join(s.WorkDir(), fmt.Sprintf("csi-provisioner-%d.proxied.kubeconfig", i))
	return path, clientcmd.WriteToFile(*cfg, path)
}
