package capacity

import (
	"testing"

	"github.com/csi-protect/external-provisioner/internal/reconcile/reconciletest"
)

// The queues carry upstream's names, so workqueue_*{name="csistoragecapacity"}
// and {name="csitopology"} series keep their meaning.
func TestQueuesHaveUpstreamsNames(t *testing.T) {
	names := reconciletest.RecordQueueNames(t)
	newFixture(t, fixtureOptions{}) // nodes from the informers: a topology of its own
	for _, name := range []string{"csistoragecapacity", "csitopology"} {
		if !names.Created(name) {
			t.Errorf("no queue named %q", name)
		}
	}
}
