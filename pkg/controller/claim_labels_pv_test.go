package controller

import (
	"maps"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// provisionLabelled provisions a claim with labels under
// --claim-labels-to-volume=entries and returns its PV.
func provisionLabelled(t *testing.T, labels map[string]string, entries ...string) *v1.PersistentVolume {
	t.Helper()
	claim := newClaim("db", "1Gi")
	claim.Labels = labels
	keys, err := ParseLabelKeys(entries)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, func(o *Options) { o.ClaimLabelsToVolume = keys })
	pv, _, err := e.provision(t, claim, newClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	return pv
}

func TestTheClaimsSelectedLabelsAreCopiedToItsNewPV(t *testing.T) {
	pv := provisionLabelled(t, map[string]string{
		"team":                                       "payments",
		"example.com/cost-centre":                    "cc-42",
		"app.kubernetes.io/name":                     "db",
		"topology.kubernetes.io/zone":                "zone-a",
		"provisioner.storage.kubernetes.io/retained": "true",
		"other": "x",
	}, "team", "example.com/*", "app.kubernetes.io/*")
	want := map[string]string{"team": "payments", "example.com/cost-centre": "cc-42", "app.kubernetes.io/name": "db"}
	if !maps.Equal(pv.Labels, want) {
		t.Errorf("PV labels %v, want %v", pv.Labels, want)
	}
}

func TestEvenAllLabelsLeaveOutKubernetesDomains(t *testing.T) {
	pv := provisionLabelled(t, map[string]string{"team": "payments", "topology.kubernetes.io/zone": "zone-a", "kubernetes.io/hostname": "n1"}, "*")
	if want := map[string]string{"team": "payments"}; !maps.Equal(pv.Labels, want) {
		t.Errorf("PV labels %v, want %v", pv.Labels, want)
	}
}

func TestWithoutTheFlagAPVHasNoLabels(t *testing.T) {
	if pv := provisionLabelled(t, map[string]string{"team": "payments"}); pv.Labels != nil {
		t.Errorf("PV labels %v: upstream sets none", pv.Labels)
	}
}
