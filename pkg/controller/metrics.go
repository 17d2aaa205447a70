package controller

import (
	"k8s.io/component-base/metrics"
)

// Metrics tell an operator what the provisioner does for provisioning
// protection, the claim protection controller has the rest of that family,
// and for distributed provisioning.
type Metrics struct {
	// FinalizersAdded counts provisioning-protection finalizers added to
	// claims before CreateVolume.
	FinalizersAdded *metrics.Counter
	// AbandonedVolumesDeleted counts volumes deleted because their claim was
	// deleted while they were being provisioned.
	AbandonedVolumesDeleted *metrics.Counter
	// OwnershipConflicts counts, in node deployment, failed attempts to
	// select this node for a claim with Immediate binding because the claim
	// changed meanwhile (usually: another node took it).
	OwnershipConflicts *metrics.Counter
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	const namespace, subsystem = "csi_provisioner", "provisioning_protection"
	return &Metrics{
		FinalizersAdded: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "finalizers_added_total",
			Help:           "Provisioning-protection finalizers added to claims before CreateVolume.",
			StabilityLevel: metrics.ALPHA,
		}),
		AbandonedVolumesDeleted: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "abandoned_volumes_deleted_total",
			Help:           "Volumes deleted because their claim was deleted while they were being provisioned.",
			StabilityLevel: metrics.ALPHA,
		}),
		OwnershipConflicts: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: "node_deployment", Name: "ownership_conflicts_total",
			Help:           "Conflicts while selecting this node for a claim with Immediate binding (--node-deployment).",
			StabilityLevel: metrics.ALPHA,
		}),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.FinalizersAdded, m.AbandonedVolumesDeleted, m.OwnershipConflicts}
}
