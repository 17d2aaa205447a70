package agent

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestNewChecksOptions(t *testing.T) {
	h := newHost(t)
	e := newEnv(t, h, nil)
	valid := func() Options {
		return Options{NodeName: testNode, SymlinkRoot: testRoot, Client: e.Client, LocalClient: e.local,
			Runner: h, FS: h.fs, Checker: h.checker(), Wiper: h, EventRecorder: record.NewFakeRecorder(1)}
	}
	if _, err := New(valid()); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	for name, change := range map[string]func(*Options){
		"no node":         func(o *Options) { o.NodeName = "" },
		"relative root":   func(o *Options) { o.SymlinkRoot = "mnt" },
		"root /":          func(o *Options) { o.SymlinkRoot = "/" },
		"unclean root":    func(o *Options) { o.SymlinkRoot = "/mnt/../etc" },
		"no client":       func(o *Options) { o.Client = nil },
		"no local client": func(o *Options) { o.LocalClient = nil },
		"no recorder":     func(o *Options) { o.EventRecorder = nil },
		"no runner":       func(o *Options) { o.Runner = nil },
		"no fs":           func(o *Options) { o.FS = nil },
		"no checker":      func(o *Options) { o.Checker = nil },
		"no wiper":        func(o *Options) { o.Wiper = nil },
	} {
		o := valid()
		change(&o)
		if _, err := New(o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestRunTwiceFails(t *testing.T) {
	h := newHost(t)
	e := newEnv(t, h, nil)
	e.start()
	eventually(t, "Run to start", func() bool {
		e.agent.mu.Lock()
		defer e.agent.mu.Unlock()
		return e.agent.started
	})
	if err := e.agent.Run(context.Background()); err == nil {
		t.Error("second Run did not fail")
	}
}

// Without Metrics the agent works on a private set that no registry, the
// global one included, exposes.
func TestNilMetricsStayPrivate(t *testing.T) {
	h, e := newOneDiskEnv(t)
	a, err := New(Options{NodeName: testNode, SymlinkRoot: testRoot, Client: e.Client, LocalClient: e.local,
		Runner: h, FS: h.fs, Checker: h.checker(), Wiper: h, EventRecorder: record.NewFakeRecorder(100)})
	if err != nil {
		t.Fatal(err)
	}
	stop := testutil.Start(t, e.Ctx, a.Run)
	eventually(t, "a PV", func() bool { return len(e.pvs()) == 1 })
	stop()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "csi_provisioner_local_volume_agent_") {
			t.Errorf("metric %s registered globally", f.GetName())
		}
	}
}
