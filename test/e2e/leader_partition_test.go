//go:build e2e

package e2e

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// kubeconfigVia writes a copy of the kubeconfig at source whose server is
// host (host:port) instead, as name in the stack's work dir: a client
// with the same credentials, through a proxy.
func kubeconfigVia(t *testing.T, s *framework.Stack, source, host, name string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(source)
	if err != nil {
		t.Fatal(err)
	}
	for _, cluster := range cfg.Clusters {
		u, err := url.Parse(cluster.Server)
		if err != nil {
			t.Fatal(err)
		}
		u.Host = host
		cluster.Server = u.String()
	}
	path := filepath.Join(s.WorkDir(), name)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// The leader is cut off from kube-apiserver (its connections go through a
// proxy the test closes) while a CreateVolume of its runs. It cannot renew
// its Lease, stops leading within the renew deadline and exits; the other
// replica takes the Lease once it expires and provisions, the cut-off
// claim included. When the old leader's access comes back it makes no call
// any more: every claim got exactly one backend volume, and the old
// leader's log has no CreateVolume after the new one started.
func TestPartitionedLeaderStopsBeforeTheNextLeaderProvisions(t *testing.T) {
	le := framework.LeaderElectionOptions{LeaseDuration: 6 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: time.Second}
	ctx, s := startStack(t, framework.StackOptions{
		Driver:  framework.DriverOptions{CreateDelay: 3 * time.Second, Verbosity: driverRequestVerbosity},
		Sidecar: framework.SidecarOptions{Deferred: true, AsAdmin: true},
	})
	apiserver, err := url.Parse(s.Client().CoreV1().RESTClient().Get().URL().String())
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := framework.StartTCPProxy(apiserver.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()

	// The old leader goes through the proxy and is expected to exit once
	// it has lost the Lease.
	old, err := s.StartSidecarExpectingExit(ctx, framework.SidecarOptions{
		AsAdmin: true, LeaderElection: &le,
		// $KUBECONFIG wins over --kubeconfig, as upstream's; the last
		// value of a variable wins.
		Env: []string{"KUBECONFIG=" + kubeconfigVia(t, s, s.Cluster().Kubeconfig(), proxy.Addr(), "proxied.kubeconfig")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = old.Kill() }()
	oldID := waitForIdentity(ctx, t, s, old)
	waitForLeaseHolder(ctx, t, s, map[string]*framework.Process{oldID: old}, "")
	next, err := s.StartSidecar(ctx, framework.SidecarOptions{AsAdmin: true, LeaderElection: &le})
	if err != nil {
		t.Fatal(err)
	}
	nextID := waitForIdentity(ctx, t, s, next)

	createStorageClass(ctx, t, s, "mock")
	pvc := createClaim(ctx, t, s, "default", "cut-off", "mock")
	waitForCreateVolumeReceived(ctx, t, s, "pvc-"+string(pvc.UID))
	proxy.Cut()
	cut := time.Now()

	if holder := waitForLeaseHolder(ctx, t, s, map[string]*framework.Process{nextID: next}, ""); holder != next {
		t.Fatalf("the Lease went to %s", holder.Name())
	}
	t.Logf("the other replica took the Lease %s after the cut", time.Since(cut).Round(time.Millisecond))
	waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := old.Wait(waitCtx); waitCtx.Err() != nil {
		t.Fatalf("the cut-off leader still runs after its Lease went to another replica")
	} else {
		t.Logf("the cut-off leader exited: %v", err)
	}
	proxy.Restore()

	createClaim(ctx, t, s, "default", "after", "mock")
	waitForClaimBound(ctx, t, s, "default", "cut-off")
	waitForClaimBound(ctx, t, s, "default", "after")

	st, err := s.DriverState()
	if err != nil {
		t.Fatal(err)
	}
	l, err := readCreateVolumeLog(s)
	if err != nil {
		t.Fatal(err)
	}
	for name, ids := range backendVolumeIDs(st) {
		if n := max(len(ids), l.created[name]); n != 1 {
			t.Errorf("the backend made %d volumes named %s, want 1", n, name)
		}
	}
	started := firstLogTime(t, next, logControllersStarted)
	if last := lastLogTime(t, old, `"Calling CreateVolume"`); !last.IsZero() && !last.Before(started) {
		t.Errorf("the cut-off leader called CreateVolume at %s, after the next leader started at %s", last.Format(time.StampMicro), started.Format(time.StampMicro))
	}
}

// firstLogTime and lastLogTime give the klog time of the first and last line
// of a process's log holding part (zero for none); the log is of this day.
func firstLogTime(t *testing.T, p *framework.Process, part string) time.Time {
	t.Helper()
	times := logTimes(t, p, part)
	if len(times) == 0 {
		t.Fatalf("no %s in the log of %s", part, p.Name())
	}
	return times[0]
}

func lastLogTime(t *testing.T, p *framework.Process, part string) time.Time {
	t.Helper()
	times := logTimes(t, p, part)
	if len(times) == 0 {
		return time.Time{}
	}
	return times[len(times)-1]
}

func logTimes(t *testing.T, p *framework.Process, part string) []time.Time {
	t.Helper()
	data, err := os.ReadFile(p.LogFile())
	if err != nil {
		t.Fatal(err)
	}
	var times []time.Time
	for line := range strings.SplitSeq(string(data), "\n") {
		// I1126 02:36:36.055469   17039 file.go:1] "message" ...
		fields := strings.Fields(line)
		if !strings.Contains(line, part) || len(fields) < 2 || len(fields[0]) != 5 {
			continue
		}
		at, err := time.Parse("0102 15:04:05.000000", fields[0][1:]+" "+fields[1])
		if err == nil {
			times = append(times, at)
		}
	}
	return times
}
