package controller

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

// As upstream: a selected node without a CSINode object (no driver has
// registered there) sends the claim back to the scheduler, with
// upstream's text for the library's ProvisioningFailed event.
func TestSelectedNodeWithoutCSINodeGoesBackToTheScheduler(t *testing.T) {
	claim, class, node, _ := scheduledObjects()
	e := newEnv(t, envObjects{claims: []*v1.PersistentVolumeClaim{claim}, classes: []*storagev1.StorageClass{class}, nodes: []*v1.Node{node}}, topologyDriver)
	_, state, err := e.provision(t, claim, class, node)
	if state != controller.ProvisioningReschedule {
		t.Fatalf("state %s (err %v), want ProvisioningReschedule", state, err)
	}
	if want := `failed to get selected CSINode node-1: csinode.storage.k8s.io "node-1" not found`; err == nil || err.Error() != want {
		t.Fatalf("err %v, want upstream's %q", err, want)
	}
	if n := len(e.csi.creates); n != 0 {
		t.Fatalf("%d CreateVolume calls, want none", n)
	}
}
