package pvprotection

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/metrics/legacyregistry"
)

func TestMetrics(t *testing.T) {
	e := newEnv(t, setup{volumes: []*v1.PersistentVolume{
		newPV("a", protected, deleting, boundTo("ns", "a")),
		newPV("b", protected, deleting, boundTo("ns", "b")),
		newPV("new"),
		newPV("foreign", driver(otherDriver)),
	}})
	e.run(t)
	eventually(t, "two held volumes", func() bool { return e.metric(t, "held_volumes") == 2 })
	eventually(t, "the finalizer on new", func() bool { return hasFinalizer(e.pv(t, "new")) })
	// Counted after the write returns, which the API shows first.
	eventually(t, "finalizers_added_total = 1", func() bool { return e.metric(t, "finalizers_added_total") == 1 })

	e.update(t, "a", phase(v1.VolumeReleased))
	eventually(t, "a released", func() bool { return e.metric(t, "held_volumes") == 1 })
	eventually(t, "finalizers_removed_total = 1", func() bool { return e.metric(t, "finalizers_removed_total") == 1 })

	// A held PV that disappears (the fake API server ignores finalizers on
	// delete) is no longer counted.
	if err := e.client.CoreV1().PersistentVolumes().Delete(context.Background(), "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b forgotten", func() bool { return e.metric(t, "held_volumes") == 0 })
	if got := e.metric(t, "finalizers_removed_total"); got != 1 {
		t.Errorf("finalizers_removed_total = %v, want still 1", got)
	}
}

// Without Metrics the controller works on a private set that no registry,
// the global one included, exposes.
func TestNilMetricsStayPrivate(t *testing.T) {
	client := fake.NewClientset(newPV("pv"))
	factory := informers.NewSharedInformerFactory(client, 0)
	c, err := New(Options{Client: client, VolumeInformer: factory.Core().V1().PersistentVolumes(),
		DriverName: testDriver, EventRecorder: record.NewFakeRecorder(1)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	if _, err := c.sync(ctx, "pv"); err != nil {
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
