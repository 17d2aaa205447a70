package features

import (
	"strings"
	"testing"

	"k8s.io/component-base/featuregate"
)

func TestDefaults(t *testing.T) {
	gate := New()
	want := map[featuregate.Feature]bool{
		Topology:                       true,
		HonorPVReclaimPolicy:           true,
		CrossNamespaceVolumeDataSource: false,
		VolumeAttributesClass:          true,
		ProvisioningProtection:         true,
		PVProtection:                   false,
		PVCProtection:                  false,
		LocalVolumeCleanup:             false,
		ClaimConditions:                false,
	}
	for f, on := range want {
		if got := gate.Enabled(f); got != on {
			t.Errorf("%s: enabled=%v, want %v", f, got, on)
		}
	}
}

func TestMaturity(t *testing.T) {
	all := New().GetAll()
	want := map[featuregate.Feature]featuregate.FeatureSpec{
		Topology:                       {Default: true, PreRelease: featuregate.GA},
		HonorPVReclaimPolicy:           {Default: true, PreRelease: featuregate.Beta},
		CrossNamespaceVolumeDataSource: {Default: false, PreRelease: featuregate.Alpha},
		VolumeAttributesClass:          {Default: true, PreRelease: featuregate.GA},
		ProvisioningProtection:         {Default: true, PreRelease: featuregate.Beta},
		PVProtection:                   {Default: false, PreRelease: featuregate.Alpha},
		PVCProtection:                  {Default: false, PreRelease: featuregate.Alpha},
		LocalVolumeCleanup:             {Default: false, PreRelease: featuregate.Alpha},
		ClaimConditions:                {Default: false, PreRelease: featuregate.Alpha},
	}
	for f, w := range want {
		got, ok := all[f]
		if !ok {
			t.Errorf("%s not registered", f)
			continue
		}
		if got.Default != w.Default || got.PreRelease != w.PreRelease || got.LockToDefault != w.LockToDefault {
			t.Errorf("%s: got %+v, want %+v", f, got, w)
		}
	}
}

func TestInstancesAreIndependent(t *testing.T) {
	a, b := New(), New()
	if err := a.Set("Topology=false"); err != nil {
		t.Fatal(err)
	}
	if !b.Enabled(Topology) {
		t.Error("setting one gate instance changed another")
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		value   string
		wantErr string
	}{
		{value: "Topology=true"},
		{value: "Topology=false,HonorPVReclaimPolicy=false"},
		{value: "NoSuchGate=true", wantErr: "NoSuchGate"},
		{value: "Topology=maybe", wantErr: "Topology"},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			err := New().Set(tc.value)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v does not name %q", err, tc.wantErr)
			}
		})
	}
}
