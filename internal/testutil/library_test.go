package testutil

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

// provisionAll provisions every claim with a PV of its own name.
type provisionAll struct{}

func (provisionAll) Provision(_ context.Context, o libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
	return NewPV(o.PVName, WithCSI("test.csi.example.com", "handle-"+o.PVName)), libcontroller.ProvisioningFinished, nil
}

func (provisionAll) Delete(context.Context, *v1.PersistentVolume) error { return nil }

// The library runs over the env's informers, stores the PV it was given
// and counts the claim in the env's registry.
func TestALibraryProvisionsOverTheEnvsInformers(t *testing.T) {
	e := NewEnv(t, EnvOptions{Objects: []runtime.Object{
		NewClass("fast", "test.csi.example.com"),
		NewClaim("apps", "db", WithClass("fast"), WithClaimPhase(v1.ClaimPending),
			WithAnnotation("volume.kubernetes.io/storage-provisioner", "test.csi.example.com")),
	}})
	lib := e.NewLibrary(LibraryOptions{Driver: "test.csi.example.com", Provisioner: provisionAll{}})
	e.StartInformers(t)
	e.Run(t, lib.Run)

	e.Eventually(t, "the PV of the claim", func() bool {
		_, ok := Find(t, e.Client.CoreV1().PersistentVolumes(), "pvc-uid-db")
		return ok
	})
	if got := Metric(t, e.Registry, "test_persistentvolumeclaim_provision_total", "class", "fast"); got != 1 {
		t.Errorf("claims provisioned = %v, want 1", got)
	}
}
