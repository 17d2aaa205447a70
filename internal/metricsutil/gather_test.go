package metricsutil

import (
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"k8s.io/component-base/metrics"
)

// gather is the text a registry serves.
func gather(t *testing.T, registry metrics.KubeRegistry) string {
	t.Helper()
	families, err := registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, family := range families {
		if _, err := expfmt.MetricFamilyToText(&b, family); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}
