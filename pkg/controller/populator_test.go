package controller

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

// As upstream v6.3.0 (prepareProvision), a claim whose data source is
// neither a claim nor a VolumeSnapshot reaches Provision, which says in a
// Normal Provisioning event that a populator will fill it and leaves it.
func TestPopulatorClaimIsLeftToItsPopulatorWithAnEvent(t *testing.T) {
	cases := []struct{ name, group, kind string }{
		{"populator kind", "populator.example.com", "Image"},
		// Upstream would clone the core claim of that name, which the
		// reference does not name.
		{"claim kind of another group", "populator.example.com", "PersistentVolumeClaim"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			claim := newClaim("populated", "1Gi")
			claim.Spec.DataSourceRef = &v1.TypedObjectReference{APIGroup: &tc.group, Kind: tc.kind, Name: "ubuntu"}
			e := newEnv(t, envObjects{})
			if !e.prov.ShouldProvision(context.Background(), claim) {
				t.Fatal("ShouldProvision = false: the library would post no Provisioning event")
			}
			_, state, err := e.provision(t, claim, newClass(nil), nil)
			var ignored *controller.IgnoredError
			if !errors.As(err, &ignored) || state != controller.ProvisioningFinished {
				t.Fatalf("state %s, err %v; want Finished and an IgnoredError", state, err)
			}
			want := []string{"Normal Provisioning Assuming an external populator will provision the volume"}
			if got := e.events.Drain(); len(got) != 1 || got[0] != want[0] {
				t.Fatalf("events %q, want %q", got, want)
			}
			if len(e.csi.creates) != 0 {
				t.Fatal("CreateVolume was called for a populator's claim")
			}
		})
	}
}

// A VolumeSnapshot of another API group is no populator's: upstream refuses
// it, with no populator event.
func TestSnapshotKindOfAnotherGroupIsRefused(t *testing.T) {
	claim := newClaim("restored", "1Gi")
	group := "snapshots.example.com"
	claim.Spec.DataSourceRef = &v1.TypedObjectReference{APIGroup: &group, Kind: "VolumeSnapshot", Name: "nightly"}
	e := newEnv(t, envObjects{})
	_, _, err := e.provision(t, claim, newClass(nil), nil)
	want := "the PVC source does not belong to the right APIGroup. Expected snapshot.storage.k8s.io, Got snapshots.example.com"
	if err == nil || err.Error() != want {
		t.Fatalf("err %v, want %q", err, want)
	}
	if got := e.events.Drain(); len(got) != 0 {
		t.Fatalf("events %q, want none", got)
	}
}

// A populator's claim with a source in another namespace is checked like
// any other first, as upstream's dataSource does.
func TestPopulatorClaimInAnotherNamespaceNeedsTheGate(t *testing.T) {
	claim := newClaim("populated", "1Gi")
	group, ns := "populator.example.com", "images"
	claim.Spec.DataSourceRef = &v1.TypedObjectReference{APIGroup: &group, Kind: "Image", Name: "ubuntu", Namespace: &ns}
	e := newEnv(t, envObjects{})
	_, state, err := e.provision(t, claim, newClass(nil), nil)
	want := "dataSourceRef namespace specified but the CrossNamespaceVolumeDataSource feature is disabled"
	if err == nil || err.Error() != want || state != controller.ProvisioningFinished {
		t.Fatalf("state %s, err %v; want Finished and %q", state, err, want)
	}
	if got := e.events.Drain(); len(got) != 0 {
		t.Fatalf("events %q, want none", got)
	}
}
