package pvcprotection

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Freshness check results, the values of the result label.
const (
	// resultCache: the pod cache already held every pod write the check
	// asked about; one tiny consistent request.
	resultCache = "cache"
	// resultWatch: a short watch replayed the namespace's recent pod events.
	resultWatch = "watch"
	// resultList: the check fell back to a live list of the namespace's
	// pods, as kube-controller-manager does for every batch.
	resultList = "list"
	// resultSmallList: a namespace of few pods was listed live at once, at
	// most smallNamespacePods pods, instead of waiting for a watch.
	resultSmallList = "small-list"
)

// Metrics tell an operator what PVC protection is doing and what it costs
// the API server.
type Metrics struct {
	// HeldClaims counts claims being deleted whose deletion waits for a pod.
	HeldClaims *metrics.Gauge
	// OldestHoldAge is the seconds since the deletion of the claim held
	// longest, 0 when none is held.
	OldestHoldAge *metricsutil.AgeGauge
	// FinalizersAdded and FinalizersRemoved count pvc-protection finalizer
	// writes.
	FinalizersAdded   *metrics.Counter
	FinalizersRemoved *metrics.Counter
	// FreshnessChecks counts freshness checks by how they were settled.
	FreshnessChecks *metrics.CounterVec
	// LivePodLists counts namespace-wide pod lists: the expensive request
	// the freshness check exists to avoid.
	LivePodLists *metrics.Counter
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry. Unregistered metrics cost nothing and record nothing.
func NewMetrics() *Metrics {
	f := metricsutil.Factory{Namespace: "csi_provisioner", Subsystem: "pvc_protection"}
	return &Metrics{
		HeldClaims: f.Gauge("held_claims",
			"Claims being deleted whose deletion waits until no pod uses them."),
		OldestHoldAge: f.AgeGauge("oldest_hold_age_seconds",
			"Seconds since the deletion of the claim whose deletion PVC protection has held longest; 0 when none is held."),
		FinalizersAdded: f.Counter("finalizers_added_total",
			"pvc-protection finalizers added to claims that missed them."),
		FinalizersRemoved: f.Counter("finalizers_removed_total",
			"pvc-protection finalizers removed from claims no pod uses."),
		FreshnessChecks: f.CounterVec("freshness_checks_total",
			"Checks that the pod cache holds every pod created before a claim's deletion, by how they were settled: cache, watch, list or small-list.", "result"),
		LivePodLists: f.Counter("live_pod_lists_total",
			"Live lists of all pods of a namespace, made when a freshness check could not use a watch."),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.HeldClaims, m.FinalizersAdded, m.FinalizersRemoved, m.FreshnessChecks, m.LivePodLists}
}

// Collectors lists the metrics computed at scrape time, for
// CustomMustRegister.
func (m *Metrics) Collectors() []metrics.StableCollector {
	return []metrics.StableCollector{m.OldestHoldAge}
}
