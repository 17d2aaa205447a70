package metricsutil

import (
	"testing"

	"k8s.io/component-base/metrics"
)

// The factory's metrics have the full name, help, labels and type they are
// asked for, at ALPHA.
func TestFactory(t *testing.T) {
	f := Factory{Namespace: "ns", Subsystem: "sub"}
	counter := f.Counter("c_total", "A counter.")
	vec := f.CounterVec("v_total", "A vector.", "result", "kind")
	gauge := f.Gauge("g", "A gauge.")
	registry := metrics.NewKubeRegistry()
	registry.MustRegister(counter, vec, gauge)
	counter.Inc()
	vec.WithLabelValues("ok", "x").Inc()
	gauge.Set(2)

	want := `# HELP ns_sub_c_total [ALPHA] A counter.
# TYPE ns_sub_c_total counter
ns_sub_c_total 1
# HELP ns_sub_g [ALPHA] A gauge.
# TYPE ns_sub_g gauge
ns_sub_g 2
# HELP ns_sub_v_total [ALPHA] A vector.
# TYPE ns_sub_v_total counter
ns_sub_v_total{kind="x",result="ok"} 1
`
	if got := gather(t, registry); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
