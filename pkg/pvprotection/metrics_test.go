package pvprotection

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestMetrics(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{
		newPV("a", protected, testutil.Deleting(), testutil.BoundTo("ns", "a", "")),
		newPV("b", protected, testutil.Deleting(), testutil.BoundTo("ns", "b", "")),
		newPV("new"),
		newPV("foreign", driver(otherDriver)),
	}})
	e.run(t)
	e.Eventually(t, "two held volumes", func() bool { return e.metric(t, "held_volumes") == 2 })
	e.Eventually(t, "the finalizer on new", func() bool { return e.hasFinalizer(t, "new") })
	// Counted after the write returns, which the API shows first.
	e.Eventually(t, "finalizers_added_total = 1", func() bool { return e.metric(t, "finalizers_added_total") == 1 })

	testutil.UpdatePV(t, e.Client, "a", testutil.WithVolumePhase(v1.VolumeReleased))
	e.Eventually(t, "a released", func() bool { return e.metric(t, "held_volumes") == 1 })
	e.Eventually(t, "finalizers_removed_total = 1", func() bool { return e.metric(t, "finalizers_removed_total") == 1 })

	// A held PV that disappears (the fake API server ignores finalizers on
	// delete) is no longer counted.
	testutil.Delete(t, e.Client.CoreV1().PersistentVolumes(), "b")
	e.Eventually(t, "b forgotten", func() bool { return e.metric(t, "held_volumes") == 0 })
	if got := e.metric(t, "finalizers_removed_total"); got != 1 {
		t.Errorf("finalizers_removed_total = %v, want still 1", got)
	}
}

// Without Metrics the controller works on a private set that no registry,
// the global one included, exposes.
func TestNilMetricsStayPrivate(t *testing.T) {
	e := testutil.NewEnv(t, testutil.EnvOptions{Client: fake.NewClientset(newPV("pv"))})
	c, err := New(Options{Client: e.Client, VolumeInformer: e.Informers.Core().V1().PersistentVolumes(),
		DriverName: testDriver, EventRecorder: e.Events})
	if err != nil {
		t.Fatal(err)
	}
	e.StartInformers(t)
	if _, err := c.sync(e.Ctx, "pv"); err != nil {
		t.Fatal(err)
	}
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "csi_provisioner_pv_protection_") {
			t.Errorf("metric %s registered globally", f.GetName())
		}
	}
}
