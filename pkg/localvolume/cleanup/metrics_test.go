package cleanup

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/metrics/legacyregistry"
)

func TestMetricNames(t *testing.T) {
	e := newEnv(t, setup{})
	for _, name := range []string{"blocked_deletions", "volumes_released_total", "volumes_abandoned_total", "finalizers_removed_total"} {
		if got := e.metric(t, name); got != 0 {
			t.Errorf("%s = %v at start, want 0", name, got)
		}
	}
}

// An owner remembered as blocked that disappears (force-deleted by its
// finalizer's removal by hand) is no longer counted.
func TestBlockedGaugeForgetsGoneOwner(t *testing.T) {
	e := newEnv(t, setup{
		owners:  []ownerObject{newOwner(KindLocalVolumeSet, protectedOwner, deletingOwner)},
		volumes: []*corev1.PersistentVolume{newPV("pv", KindLocalVolumeSet, boundTo("app", "db"))},
		nodes:   []*corev1.Node{newNode(testNode)},
	})
	e.run(t)
	e.Eventually(t, "the blockage", func() bool { return e.metric(t, "blocked_deletions") == 1 })
	// Gone at once, as if its finalizer had been removed by hand.
	if err := e.local.Tracker().Delete(LocalVolumeSetResource, testNS, ownerName); err != nil {
		t.Fatal(err)
	}
	e.Eventually(t, "the gone owner to be forgotten", func() bool { return e.metric(t, "blocked_deletions") == 0 })
	if e.ctrl.isBlocked(keyOf(KindLocalVolumeSet)) {
		t.Error("gone owner still remembered as blocked")
	}
}

// Without Metrics the controller works on a private set that no registry,
// the global one included, exposes.
func TestNilMetricsStayPrivate(t *testing.T) {
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	c, err := New(Options{
		Client: client, LocalClient: newLocalClient(), EventRecorder: &eventLog{},
		VolumeInformer: factory.Core().V1().PersistentVolumes(), NodeInformer: factory.Core().V1().Nodes(), Enabled: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	c.metrics.VolumesReleased.Inc()
	c.metrics.BlockedDeletions.Set(1)
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "csi_provisioner_local_volume_cleanup_") {
			t.Errorf("metric %s registered globally", f.GetName())
		}
	}
}
