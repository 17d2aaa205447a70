package controller

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
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
	// PendingClaims counts, when scraped, the claims waiting for this
	// provisioner and the age of the oldest (pending_claims.go).
	PendingClaims *PendingClaims
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	f := metricsutil.Factory{Namespace: "csi_provisioner", Subsystem: "provisioning_protection"}
	node := metricsutil.Factory{Namespace: "csi_provisioner", Subsystem: "node_deployment"}
	return &Metrics{
		FinalizersAdded: f.Counter("finalizers_added_total",
			"Provisioning-protection finalizers added to claims before CreateVolume."),
		AbandonedVolumesDeleted: f.Counter("abandoned_volumes_deleted_total",
			"Volumes deleted because their claim was deleted while they were being provisioned."),
		OwnershipConflicts: node.Counter("ownership_conflicts_total",
			"Conflicts while selecting this node for a claim with Immediate binding (--node-deployment)."),
		PendingClaims: newPendingClaims(),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.FinalizersAdded, m.AbandonedVolumesDeleted, m.OwnershipConflicts}
}

// Collectors lists the metrics computed at scrape time, for
// CustomMustRegister.
func (m *Metrics) Collectors() []metrics.StableCollector {
	return []metrics.StableCollector{m.PendingClaims}
}
