package claimprotection

import (
	"testing"

	"github.com/csi-protect/external-provisioner/internal/reconcile/reconciletest"
)

// The queue carries the name of upstream's cloning protection queue,
// "claims", so workqueue_*{name="claims"} series count what upstream's do.
func TestQueueHasUpstreamsName(t *testing.T) {
	names := reconciletest.RecordQueueNames(t)
	newEnv(t, setup{})
	if !names.Created("claims") {
		t.Error(`no queue named "claims"`)
	}
}
