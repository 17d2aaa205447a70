package capacity

import (
	"testing"

	"github.com/csi-protect/external-provisioner/internal/reconcile/reconciletest"
)

// The queue carries upstream's name, so workqueue_*{name="csistoragecapacity"}
// series keep their meaning.
func TestQueueHasUpstreamsName(t *testing.T) {
	names := reconciletest.RecordQueueNames(t)
	newFixture(t, fixtureOptions{})
	if !names.Created("csistoragecapacity") {
		t.Error(`no queue named "csistoragecapacity"`)
	}
}
