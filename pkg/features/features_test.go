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
		VolumeAttributesClass:          false,
		ProvisioningProtection:         true,
		PVProtection:                   false,
		PVCProtection:                  false,
		LocalVolumeCleanup:             false,
	}
	for f, on := range want {
		if got := gate.Enabled(f); got != on {
			t.Errorf("%s: enabled=%v, want %v", f, got, on)
		}
	}
	if err := Validate(gate); err != nil {
		t.Errorf("defaults must validate, got %v", err)
	}
}

func TestMaturity(t *testing.T) {
	all := New().GetAll()
	want := map[featuregate.Feature]featuregate.FeatureSpec{
		Topology:                       {Default: true, PreRelease: featuregate.GA},
		HonorPVReclaimPolicy:           {Default: true, PreRelease: featuregate.Beta},
		CrossNamespaceVolumeDataSource: {Default: false, PreRelease: featuregate.Alpha},
		VolumeAttributesClass:          {Default: false, PreRelease: featuregate.Beta},
		ProvisioningProtection:         {Default: true, PreRelease: featuregate.Beta},
		PVProtection:                   {Default: false, PreRelease: featuregate.Alpha},
		PVCProtection:                  {Default: false, PreRelease: featuregate.Alpha},
		LocalVolumeCleanup:             {Default: false, PreRelease: featuregate.Alpha},
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

func TestValidateRefusesNotBuilt(t *testing.T) {
	for _, f := range NotBuilt {
		t.Run(string(f), func(t *testing.T) {
			gate := New()
			if err := gate.Set(string(f) + "=true"); err != nil {
				t.Fatal(err)
			}
			err := Validate(gate)
			if err == nil {
				t.Fatal("expected an error")
			}
			msg := err.Error()
			if !strings.Contains(msg, string(f)) || !strings.Contains(msg, "not supported by this release") {
				t.Errorf("message %q must name %s and say it is not supported", msg, f)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message %q must be one line", msg)
			}

			// Explicitly off is fine.
			if err := gate.Set(string(f) + "=false"); err != nil {
				t.Fatal(err)
			}
			if err := Validate(gate); err != nil {
				t.Errorf("explicitly off must validate, got %v", err)
			}
		})
	}
}

func TestValidateNamesTheOffender(t *testing.T) {
	gate := New()
	if err := gate.Set("CrossNamespaceVolumeDataSource=true,VolumeAttributesClass=true"); err != nil {
		t.Fatal(err)
	}
	err := Validate(gate)
	if err == nil {
		t.Fatal("expected an error")
	}
	if strings.Contains(err.Error(), "CrossNamespaceVolumeDataSource") {
		t.Errorf("%q names CrossNamespaceVolumeDataSource, which is built", err)
	}
	for _, name := range []string{"VolumeAttributesClass"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("%q does not name %s", err, name)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("message %q must be one line", err)
	}
}

func TestAllBetaIsRefused(t *testing.T) {
	// AllBeta is built into every gate; it must not sneak unbuilt features in.
	gate := New()
	if err := gate.Set("AllBeta=true"); err != nil {
		t.Fatal(err)
	}
	if err := Validate(gate); err == nil {
		t.Error("AllBeta=true turns on unbuilt features and must be refused")
	}
}

func TestBuiltGatesMayBeChanged(t *testing.T) {
	gate := New()
	if err := gate.Set("Topology=false,HonorPVReclaimPolicy=false"); err != nil {
		t.Fatal(err)
	}
	if err := Validate(gate); err != nil {
		t.Errorf("built gates may be switched, got %v", err)
	}
}
