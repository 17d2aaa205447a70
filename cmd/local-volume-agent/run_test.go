package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"
)

func testConfig(t *testing.T, extra ...string) *config {
	t.Helper()
	cfg, err := parseFlags(append([]string{"--node-name=node-1", "--symlink-root=" + t.TempDir()}, extra...), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// unreachableLocalClient is a LocalVolume client whose every call fails to
// connect.
func unreachableLocalClient(t *testing.T) versioned.Interface {
	t.Helper()
	client, err := versioned.NewForConfig(&rest.Config{Host: "http://127.0.0.1:1", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func TestAgentOptionsWiring(t *testing.T) {
	cfg := testConfig(t, "--command-timeout=17s", "--mountinfo-path=/host/mountinfo", "--resync=3m")
	client := fake.NewClientset()
	recorder := newEventRecorder(context.Background(), client)
	o := agentOptions(cfg, client, unreachableLocalClient(t), recorder)
	if o.NodeName != "node-1" || o.SymlinkRoot != cfg.symlinkRoot || o.Resync != 3*time.Minute {
		t.Errorf("options %+v", o)
	}
	if r, ok := o.Runner.(devices.ExecRunner); !ok || r.Timeout != 17*time.Second {
		t.Errorf("runner %#v, want ExecRunner with 17s timeout", o.Runner)
	}
	if o.Checker.MountInfoPath != "/host/mountinfo" {
		t.Errorf("checker reads %q", o.Checker.MountInfoPath)
	}
	if p, ok := o.Checker.Prober.(devices.BlkidProber); !ok || p.Runner.(devices.ExecRunner).Timeout != 17*time.Second {
		t.Errorf("prober %#v", o.Checker.Prober)
	}
	w, ok := o.Wiper.(devices.WipefsWiper)
	if !ok || w.Runner.(devices.ExecRunner).Timeout != 17*time.Second || w.FS == nil || w.Verify == nil {
		t.Errorf("wiper %#v", o.Wiper)
	}
	if o.Metrics == nil || o.Metrics != agentMetrics() || o.EventRecorder == nil || o.LocalClient == nil || o.Client == nil {
		t.Errorf("options %+v", o)
	}
}

func freeAddress(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().String()
}

// get waits for the server to answer url, and returns the body.
func get(t *testing.T, url string) string {
	t.Helper()
	var body string
	testutil.Eventually(t, 5*time.Second, "GET "+url, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false // not listening yet
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", url, resp.Status)
		}
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return true
	})
	return body
}

// TestRunAgentServesAndStops runs the agent (whose owner informers cannot
// reach their API server, so it never syncs) with the HTTP server, scrapes
// it, and checks that cancelling, as SIGTERM does, stops everything with no
// error.
func TestRunAgentServesAndStops(t *testing.T) {
	addr := freeAddress(t)
	cfg := testConfig(t, "--http-endpoint="+addr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runAgent(ctx, cfg, fake.NewClientset(), unreachableLocalClient(t)) }()

	if got := get(t, "http://"+addr+"/healthz"); got != "ok" {
		t.Errorf("/healthz: %q", got)
	}
	metrics := get(t, "http://"+addr+"/metrics")
	for _, want := range []string{
		"csi_provisioner_local_volume_agent_volumes_created_total",
		"csi_provisioner_local_volume_agent_volumes_deleted_total",
		"csi_provisioner_local_volume_agent_symlinks_removed_total",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("runAgent: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("runAgent did not stop")
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("server still serving after stop")
	}
}

func TestRunAgentBusyEndpoint(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	cfg := testConfig(t, "--http-endpoint="+lis.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = runAgent(ctx, cfg, fake.NewClientset(), unreachableLocalClient(t))
	if err == nil || !strings.Contains(err.Error(), "--http-endpoint") {
		t.Errorf("runAgent: %v, want an error naming --http-endpoint", err)
	}
}

// TestEventOnOwner checks that an event on a LocalVolume as the agent
// records it (an object reference with apiVersion and kind) reaches the API
// with the right object reference and source, without registering the
// local types.
func TestEventOnOwner(t *testing.T) {
	client := fake.NewClientset()
	r := newEventRecorder(context.Background(), client)
	r.Start()
	defer r.Stop()

	lv := &corev1.ObjectReference{
		APIVersion: "local.storage.openshift.io/v1", Kind: "LocalVolume",
		Namespace: "storage", Name: "disks", UID: "uid-1",
	}
	r.Eventf(lv, "Normal", "VolumeCreated", "Created %s", "local-pv-1")

	var events []corev1.Event
	testutil.Eventually(t, 10*time.Second, "the event to be posted", func() bool {
		list, err := client.CoreV1().Events("storage").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		events = list.Items
		return len(events) > 0
	})
	e := events[0]
	ref := e.InvolvedObject
	if ref.Kind != "LocalVolume" || ref.APIVersion != "local.storage.openshift.io/v1" || ref.Name != "disks" || ref.UID != "uid-1" {
		t.Errorf("involved object %+v", ref)
	}
	if e.Source.Component != "local-volume-agent" || e.Reason != "VolumeCreated" || e.Message != "Created local-pv-1" {
		t.Errorf("event %+v", e)
	}
}
