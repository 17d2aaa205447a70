package bench

import (
	"slices"
	"testing"
)

func TestOverrideArgs(t *testing.T) {
	got := OverrideArgs([]string{"--kube-api-qps=200", "--worker-threads=100"}, []string{"--kube-api-qps=1000", "--timeout=1m"})
	want := []string{"--kube-api-qps=1000", "--worker-threads=100", "--timeout=1m"}
	if !slices.Equal(got, want) {
		t.Errorf("OverrideArgs = %q, want %q", got, want)
	}
}

// Each call of DefaultSettings hands out its own flag lists: a part that
// changes its copy leaves the others' alone.
func TestDefaultSettingsAreNotShared(t *testing.T) {
	a, b := DefaultSettings(), DefaultSettings()
	a.SidecarArgs[0] = "--kube-api-qps=1"
	a.KCMArgs[0] = "--kube-api-qps=1"
	if b.SidecarArgs[0] == a.SidecarArgs[0] || b.KCMArgs[0] == a.KCMArgs[0] {
		t.Errorf("settings share their flags: %q, %q", b.SidecarArgs, b.KCMArgs)
	}
}
