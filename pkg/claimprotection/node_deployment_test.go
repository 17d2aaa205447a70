package claimprotection

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

func onNode(claim *v1.PersistentVolumeClaim, annotations map[string]string) *v1.PersistentVolumeClaim {
	if claim.Annotations == nil {
		claim.Annotations = map[string]string{}
	}
	for k, v := range annotations {
		claim.Annotations[k] = v
	}
	return claim
}

// Another node's driver holds the volume: replaying here would look in
// the wrong driver, and releasing would leak it.
func TestADeletedClaimOfAnotherNodeIsLeftToItsSidecar(t *testing.T) {
	claim := onNode(heldClaim(), map[string]string{provisionstate.AnnProvisioningNode: "node-b", provisionstate.AnnSelectedNode: "node-b"})
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, nodeName: "node-a"})
	testutil.Delete(t, e.api(), "db")
	if err := e.sync(t, "db"); err != nil {
		t.Fatal(err)
	}
	if e.replayer.replays() != 0 {
		t.Errorf("%d replays on node-a of a claim provisioned on node-b", e.replayer.replays())
	}
	if c := e.claim(t, "db"); c == nil || !has(c, provisionstate.ProvisioningProtectionFinalizer) {
		t.Error("node-a released a claim whose volume node-b's driver may hold")
	}
}

// The node recorded with the finalizer wins over a selected node that
// changed since (a reschedule after a final error).
func TestTheRecordedNodeReplaysADeletedClaim(t *testing.T) {
	claim := onNode(heldClaim(), map[string]string{provisionstate.AnnProvisioningNode: "node-a", provisionstate.AnnSelectedNode: "node-b"})
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}, nodeName: "node-a"})
	e.run(t)
	testutil.Delete(t, e.api(), "db")
	e.Eventually(t, "the claim to be released and gone", func() bool { return e.claim(t, "db") == nil })
	if e.replayer.replays() != 1 {
		t.Errorf("%d replays, want 1", e.replayer.replays())
	}
}
