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
	metricsutil.Set
	// HeldClaims counts claims being deleted whose deletion waits for a pod.
	HeldClaims *metrics.Gauge
	metricsutil.Holds
	// FreshnessChecks counts freshness checks by how they were settled.
	FreshnessChecks *metrics.CounterVec
	// LivePodLists counts namespace-wide pod lists: the expensive request
	// the freshness check exists to avoid.
	LivePodLists *metrics.Counter
}

// NewMetrics returns unregistered metrics; the Set lists them for the
// caller's registry. Unregistered metrics cost nothing and record nothing.
func NewMetrics() *Metrics {
	m := &Metrics{}
	f := m.Factory("pvc_protection")
	m.HeldClaims = f.Gauge("held_claims",
		"Claims being deleted whose deletion waits until no pod uses them.")
	m.Holds = f.Holds(metricsutil.HoldsHelp{
		Object: "claim", Holder: "PVC protection",
		Added:   "pvc-protection finalizers added to claims that missed them.",
		Removed: "pvc-protection finalizers removed from claims no pod uses.",
	})
	m.FreshnessChecks = f.CounterVec("freshness_checks_total",
		"Checks that the pod cache holds every pod created before a claim's deletion, by how they were settled: cache, watch, list or small-list.", "result")
	m.LivePodLists = f.Counter("live_pod_lists_total",
		"Live lists of all pods of a namespace, made when a freshness check could not use a watch.")
	return m
}
