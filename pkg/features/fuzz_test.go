package features

import (
	"strconv"
	"strings"
	"testing"

	"k8s.io/component-base/featuregate"
)

// Whatever --feature-gates says, the gate answers without panicking, with an
// error (the flag layer puts it on one line) or with every known gate it
// names set as last written.
func FuzzFeatureGatesFlag(f *testing.F) {
	f.Add("Topology=false,VolumeAttributesClass=true")
	f.Add("AllAlpha=true,AllBeta=false")
	f.Add("Topology")
	f.Add("=,,=true, Topology = 0 ,Topology=T")
	f.Fuzz(func(t *testing.T, value string) {
		gate := New()
		if err := gate.Set(value); err != nil {
			return
		}
		last := map[featuregate.Feature]string{}
		for pair := range strings.SplitSeq(value, ",") {
			name, v, _ := strings.Cut(pair, "=")
			last[featuregate.Feature(strings.TrimSpace(name))] = strings.TrimSpace(v)
		}
		for name, v := range last {
			if _, known := specs[name]; !known {
				continue
			}
			want, err := strconv.ParseBool(v)
			if err != nil {
				t.Fatalf("%q accepted with %s=%q", value, name, v)
			}
			if gate.Enabled(name) != want {
				t.Fatalf("%q left %s %v", value, name, gate.Enabled(name))
			}
		}
	})
}
