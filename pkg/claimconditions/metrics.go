package claimconditions

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Results of a write, the result label of WritesTotal.
const (
	ResultSuccess  = "success"
	ResultConflict = "conflict"
	ResultNotFound = "not_found"
	ResultError    = "error"
)

// ReasonCleared is the reason label of a write that removes the condition.
const ReasonCleared = "Cleared"

// Metrics count the controller's writes, so that what the condition costs
// the API server is measured: writes per volume are WritesTotal over the
// volumes provisioned.
type Metrics struct {
	metricsutil.Set
	// WritesTotal counts status patches by the reason written (Cleared
	// for a removal) and result.
	WritesTotal *metrics.CounterVec
}

// NewMetrics returns unregistered metrics; the Set lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	m := &Metrics{}
	m.WritesTotal = m.Factory("claim_conditions").CounterVec("writes_total",
		"Patches of claim status that set or clear the sidecar's condition, by the reason written (Cleared for a removal) and result: success, conflict (the claim changed since the decision; decided again), not_found, error.",
		"reason", "result")
	return m
}
