package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/internal/testutil/fakecsi"
)

const childProcessEnv = "CSI_PROVISIONER_TEST_CHILD"

// Tests that get as far as creating the controllers run in a child process
// each, as the sidecar runs once per process: the provisioning library
// writes to client-go's shared scheme whenever it is created, and goroutines
// a previous run leaves behind for a moment (a LIST in flight) or for good
// (the leader election) read that scheme.
//
// inChildProcess reports whether the calling test runs in a child process
// of the test binary. Called in the parent, it runs the test in a child,
// fails if the child fails, and returns false.
func inChildProcess(t *testing.T) bool {
	t.Helper()
	if os.Getenv(childProcessEnv) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), childProcessEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Errorf("%s in a child process: %v\n%s", t.Name(), err, out)
	}
	return false
}

// get returns the status and body of url, or 0 if it cannot be reached.
func get(url string) (int, string) {
	rsp, err := http.Get(url)
	if err != nil {
		return 0, ""
	}
	defer rsp.Body.Close()
	body, _ := io.ReadAll(rsp.Body)
	return rsp.StatusCode, string(body)
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 30*time.Second, what, cond)
}

// startRun runs the provisioner with args against a fake API server and a
// fake driver. The returned function waits for run's result, cancelling
// first if cancel is set.
func startRun(t *testing.T, api *fakeAPIServer, d *fakecsi.Driver, args ...string) func(cancel bool) error {
	t.Helper()
	t.Setenv("KUBECONFIG", "")
	sock, stopDriver := fakecsi.Serve(t, d)
	cfg, err := parseFlags(append([]string{"--csi-address=" + sock, "--kubeconfig=" + writeKubeconfig(t, api.URL)}, args...))
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- run(ctx, cfg) }()

	returned := false
	t.Cleanup(func() {
		cancel()
		// The driver may only stop once run has closed its connection.
		if returned {
			stopDriver()
		}
	})
	return func(stop bool) error {
		if stop {
			cancel()
		}
		select {
		case err := <-result:
			returned = true
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("run did not return")
			return nil
		}
	}
}

func TestRunServesAndStopsCleanly(t *testing.T) {
	if !inChildProcess(t) {
		return
	}
	api := newFakeAPIServer(t)
	addr := freeAddress(t)
	stop := startRun(t, api, provisioningDriver(), "--http-endpoint="+addr, "--enable-pprof")

	eventually(t, "the controllers to watch claims", func() bool { return api.sawWatch("persistentvolumeclaims") })
	eventually(t, "CSI metrics", func() bool {
		// Discovery calls happen before the driver name is known.
		code, body := get("http://" + addr + "/metrics")
		return code == http.StatusOK &&
			strings.Contains(body, `csi_sidecar_operations_seconds_count{driver_name="unknown-driver",grpc_status_code="OK",method_name="/csi.v1.Identity/GetPluginInfo"} 1`)
	})
	_, body := get("http://" + addr + "/metrics")
	for _, want := range []string{
		"# TYPE workqueue_adds_total",
		"# TYPE go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Count(body, "# TYPE process_start_time_seconds ") != 1 {
		t.Error("process_start_time_seconds must be served exactly once")
	}
	if code, _ := get("http://" + addr + "/debug/pprof/"); code != http.StatusOK {
		t.Errorf("pprof answered %d", code)
	}
	if api.sawWatch("nodes") {
		t.Error("Nodes must not be watched for a driver without topology")
	}

	if err := stop(true); err != nil {
		t.Fatalf("run: %v", err)
	}
	if code, _ := get("http://" + addr + "/metrics"); code != 0 {
		t.Error("the diagnostics server still answers after shutdown")
	}
}

// Under upstream's RBAC without the VolumeAttachment rule, which charts
// drop for drivers without PUBLISH_UNPUBLISH_VOLUME, such a driver's sidecar
// never asks for VolumeAttachments, so its caches sync and its controllers
// run (the orphan audit's first ListVolumes comes after the sync).
func TestRunWithoutPublishNeverAsksForAttachments(t *testing.T) {
	if !inChildProcess(t) {
		return
	}
	api := newFakeAPIServer(t)
	api.forbid("volumeattachments")
	d := provisioningDriver()
	d.ControllerCaps = append(d.ControllerCaps, csi.ControllerServiceCapability_RPC_LIST_VOLUMES)
	stop := startRun(t, api, d, "--orphan-audit-interval=1h")

	eventually(t, "the controllers to run once the caches synced", func() bool { return d.ListVolumesCalls.Load() > 0 })
	if api.sawRequest("volumeattachments") {
		t.Error("VolumeAttachments were listed or watched for a driver without PUBLISH_UNPUBLISH_VOLUME")
	}
	if err := stop(true); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// A driver that attaches gets VolumeAttachments watched, so that a volume is
// never deleted while attached.
func TestRunWithPublishWatchesAttachments(t *testing.T) {
	if !inChildProcess(t) {
		return
	}
	api := newFakeAPIServer(t)
	d := provisioningDriver()
	d.ControllerCaps = append(d.ControllerCaps, csi.ControllerServiceCapability_RPC_PUBLISH_UNPUBLISH_VOLUME)
	stop := startRun(t, api, d)

	eventually(t, "the controllers to watch VolumeAttachments", func() bool { return api.sawWatch("volumeattachments") })
	if err := stop(true); err != nil {
		t.Fatalf("run: %v", err)
	}
}

func TestRunWithLeaderElection(t *testing.T) {
	if !inChildProcess(t) {
		return
	}
	api := newFakeAPIServer(t)
	// The election keeps renewing in the background after run returns (the
	// process would exit next); losing the API server would end the process
	// once the renew deadline passes, before the test reports.
	api.keepOpen = true
	addr := freeAddress(t)
	stop := startRun(t, api, provisioningDriver(), "--leader-election", "--leader-election-namespace=test", "--http-endpoint="+addr)

	eventually(t, "the controllers to run as leader", func() bool { return api.sawWatch("persistentvolumeclaims") })
	api.mu.Lock()
	leaseJSON, haveLease := api.leases["test-csi-example-com"]
	api.mu.Unlock()
	if !haveLease {
		t.Fatal("no Lease named after the sanitized driver name")
	}
	var lease coordinationv1.Lease
	if err := json.Unmarshal(leaseJSON, &lease); err != nil {
		t.Fatal(err)
	}
	// Upstream's holder is the host name, sanitized by csi-lib-utils, so
	// that a pod restarted under the same name takes its Lease back at once.
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	wantHolder := regexp.MustCompile("[^a-zA-Z0-9-]").ReplaceAllString(host, "-")
	if strings.HasSuffix(wantHolder, "-") {
		wantHolder += "X"
	}
	if got := ptr.Deref(lease.Spec.HolderIdentity, ""); got != wantHolder {
		t.Errorf("Lease holder %q, want the host name %q", got, wantHolder)
	}
	if code, body := get("http://" + addr + "/healthz/leader-election"); code != http.StatusOK {
		t.Errorf("leader election health check answered %d %q", code, body)
	}

	if err := stop(true); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// Upstream starts with a driver that cannot provision, and fails each claim
// and deletion instead (see TestUnsupportedProvisionerFailsAsUpstream).
func TestRunStartsForDriverWithoutProvisioning(t *testing.T) {
	if !inChildProcess(t) {
		return
	}
	api := newFakeAPIServer(t)
	stop := startRun(t, api, newDriver())

	eventually(t, "the controllers to watch claims", func() bool { return api.sawWatch("persistentvolumeclaims") })
	if err := stop(true); err != nil {
		t.Fatalf("run: %v", err)
	}
}

func TestRunFailsOnBusyHTTPAddress(t *testing.T) {
	if !inChildProcess(t) {
		return
	}
	api := newFakeAPIServer(t)
	busy := strings.TrimPrefix(api.URL, "http://")
	stop := startRun(t, api, provisioningDriver(), "--http-endpoint="+busy)
	err := stop(false)
	if err == nil || !strings.Contains(err.Error(), busy) {
		t.Errorf("got %v, want an error naming %s", err, busy)
	}
}
