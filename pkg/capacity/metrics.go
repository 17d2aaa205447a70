package capacity

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Upstream's capacity metrics, under the same names.
var (
	objectsGoalDesc = metricsutil.Desc("csistoragecapacities_desired_goal",
		"Number of CSIStorageCapacity objects that are supposed to be managed automatically.")
	objectsCurrentDesc = metricsutil.Desc("csistoragecapacities_desired_current",
		"Number of CSIStorageCapacity objects that exist and are supposed to be managed automatically.")
	objectsObsoleteDesc = metricsutil.Desc("csistoragecapacities_obsolete",
		"Number of CSIStorageCapacity objects that exist and will be deleted automatically. Objects that exist and may need an update are not considered obsolete and therefore not included in this value.")
	// This project's: upstream has no measure of staleness, nor pending
	// writes.
	oldestRefreshAgeDesc = metricsutil.Desc("csi_provisioner_capacity_oldest_refresh_age_seconds",
		"Seconds since the least recently refreshed CSIStorageCapacity object that is supposed to be managed automatically was last brought up to date with GetCapacity (created, updated or found current), or, if it never was, since it was first queued; 0 with no such object.")
	pendingWritesDesc = metricsutil.Desc("csi_provisioner_capacity_pending_writes",
		"Number of CSIStorageCapacity objects that differ from the driver's last GetCapacity answer and whose update is not made yet: waiting for a writer, backing off after a failure, or being written.")
	writesCoalescedDesc = metricsutil.Desc("csi_provisioner_capacity_writes_coalesced_total",
		"Number of pending CSIStorageCapacity updates replaced by a newer, different GetCapacity answer before they were made: changes that cost no write of their own.")
)

var _ metrics.StableCollector = &Controller{}

// DescribeWithStability implements metrics.StableCollector.
func (c *Controller) DescribeWithStability(ch chan<- *metrics.Desc) {
	ch <- objectsGoalDesc
	ch <- objectsCurrentDesc
	ch <- objectsObsoleteDesc
	ch <- oldestRefreshAgeDesc
	ch <- pendingWritesDesc
	ch <- writesCoalescedDesc
}

// CollectWithStability implements metrics.StableCollector, from the caches.
func (c *Controller) CollectWithStability(ch chan<- metrics.Metric) {
	desired := c.desired()
	goal, current, obsolete := c.counts(desired)
	ch <- metrics.NewLazyConstMetric(objectsGoalDesc, metrics.GaugeValue, float64(goal))
	ch <- metrics.NewLazyConstMetric(objectsCurrentDesc, metrics.GaugeValue, float64(current))
	ch <- metrics.NewLazyConstMetric(objectsObsoleteDesc, metrics.GaugeValue, float64(obsolete))
	ch <- metrics.NewLazyConstMetric(oldestRefreshAgeDesc, metrics.GaugeValue, c.refreshes.oldestAge(desired).Seconds())
	pending, coalesced := c.writes.counts()
	ch <- metrics.NewLazyConstMetric(pendingWritesDesc, metrics.GaugeValue, float64(pending))
	ch <- metrics.NewLazyConstMetric(writesCoalescedDesc, metrics.CounterValue, float64(coalesced))
}

// counts are the desired objects, those of them that exist, and the
// existing ones nothing desires.
func (c *Controller) counts(desired map[Key]bool) (goal, current, obsolete int) {
	existing := map[Key]bool{}
	for _, obj := range c.objects.List() {
		capacity, ok := obj.(*storagev1.CSIStorageCapacity)
		if !ok || !c.managed(capacity) {
			continue
		}
		key := keyOf(capacity)
		if desired[key] {
			existing[key] = true
		} else {
			obsolete++
		}
	}
	return len(desired), len(existing), obsolete
}
