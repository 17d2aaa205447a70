package metricsutil

import (
	"strings"
	"testing"

	"k8s.io/component-base/metrics"
)

// A set lists every metric its factories make, the age gauges among the
// collectors, so that registering the set registers them all.
func TestSetListsWhatItsFactoriesMake(t *testing.T) {
	var s Set
	f := s.Factory("sub")
	counter := f.Counter("c_total", "A counter.")
	f.CounterVec("v_total", "A vector.", "result")
	s.Factory("other").Gauge("g", "A gauge.")
	f.AgeGauge("age_seconds", "An age.")
	if got := len(s.Registerables()); got != 3 {
		t.Errorf("%d registerables, want the counter, the vector and the gauge", got)
	}
	if got := len(s.Collectors()); got != 1 {
		t.Errorf("%d collectors, want the age gauge", got)
	}

	registry := metrics.NewKubeRegistry()
	s.MustRegisterIn(registry)
	counter.Inc()
	got := gather(t, registry)
	for _, want := range []string{
		"csi_provisioner_sub_c_total 1\n",
		"csi_provisioner_other_g 0\n",
		"csi_provisioner_sub_age_seconds 0\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the registry serves\n%s\nwithout %q", got, want)
		}
	}
}

// A factory of no set makes metrics all the same.
func TestFactoryWithoutASet(t *testing.T) {
	f := Factory{Namespace: "ns", Subsystem: "sub"}
	if f.Counter("c_total", "A counter.") == nil || f.AgeGauge("a", "An age.") == nil {
		t.Fatal("no metric")
	}
}

// The hold metrics have the names and help texts every protection
// controller serves; without an Added help there is no added counter.
func TestHolds(t *testing.T) {
	var s Set
	h := s.Factory("pv_protection").Holds(HoldsHelp{
		Object: "PersistentVolume", Holder: "PV protection",
		Added: "Finalizers added.", Removed: "Finalizers removed.",
	})
	registry := metrics.NewKubeRegistry()
	s.MustRegisterIn(registry)
	h.FinalizersAdded.Inc()
	h.FinalizersRemoved.Inc()
	want := `# HELP csi_provisioner_pv_protection_finalizers_added_total [ALPHA] Finalizers added.
# TYPE csi_provisioner_pv_protection_finalizers_added_total counter
csi_provisioner_pv_protection_finalizers_added_total 1
# HELP csi_provisioner_pv_protection_finalizers_removed_total [ALPHA] Finalizers removed.
# TYPE csi_provisioner_pv_protection_finalizers_removed_total counter
csi_provisioner_pv_protection_finalizers_removed_total 1
# HELP csi_provisioner_pv_protection_oldest_hold_age_seconds [ALPHA] Seconds since the deletion of the PersistentVolume whose deletion PV protection has held longest; 0 when none is held.
# TYPE csi_provisioner_pv_protection_oldest_hold_age_seconds gauge
csi_provisioner_pv_protection_oldest_hold_age_seconds 0
`
	if got := gather(t, registry); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	removedOnly := (&Set{}).Factory("provisioning_protection").Holds(HoldsHelp{Object: "claim", Holder: "provisioning protection", Removed: "Removed."})
	if removedOnly.FinalizersAdded != nil {
		t.Error("a counter of finalizers added without its help")
	}
}
