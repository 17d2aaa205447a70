package controller

import (
	"maps"
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestTheClaimsSelectedLabelsAreCopiedToItsNewPV(t *testing.T) {
	claim := newClaim("db", "1Gi")
	claim.Labels = map[string]string{
		"team":                                       "payments",
		"example.com/cost-centre":                    "cc-42",
		"app.kubernetes.io/name":                     "db",
		"topology.kubernetes.io/zone":                "zone-a",
		"provisioner.storage.kubernetes.io/retained": "true",
		"other": "x",
	}
	keys, err := ParseLabelKeys([]string{"team", "example.com/*", "app.kubernetes.io/*"})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, func(o *Options) { o.ClaimLabelsToVolume = keys })
	pv, _, err := e.provision(t, claim, newClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"team": "payments", "example.com/cost-centre": "cc-42", "app.kubernetes.io/name": "db"}
	if !maps.Equal(pv.Labels, want) {
		t.Errorf("PV labels %v, want %v", pv.Labels, want)
	}
}

func TestEvenAllLabelsLeaveOutKubernetesDomains(t *testing.T) {
	claim := newClaim("db", "1Gi")
	claim.Labels = map[string]string{"team": "payments", "topology.kubernetes.io/zone": "zone-a", "kubernetes.io/hostname": "n1"}
	keys, err := ParseLabelKeys([]string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}}, func(o *Options) { o.ClaimLabelsToVolume = keys })
	pv, _, err := e.provision(t, claim, newClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"team": "payments"}; !maps.Equal(pv.Labels, want) {
		t.Errorf("PV labels %v, want %v", pv.Labels, want)
	}
}

func TestWithoutTheFlagAPVHasNoLabels(t *testing.T) {
	claim := newClaim("db", "1Gi")
	claim.Labels = map[string]string{"team": "payments"}
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}})
	pv, _, err := e.provision(t, claim, newClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if pv.Labels != nil {
		t.Errorf("PV labels %v: upstream sets none", pv.Labels)
	}
}
