package controller

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Metrics tell an operator what the provisioner does for provisioning
// protection, the claim protection controller has the rest of that family,
// and for distributed provisioning.
type Metrics struct {
	metricsutil.Set
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

// NewMetrics returns unregistered metrics; the Set lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	m := &Metrics{PendingClaims: newPendingClaims()}
	f := m.Factory("provisioning_protection")
	m.FinalizersAdded = f.Counter("finalizers_added_total",
		"Provisioning-protection finalizers added to claims before CreateVolume.")
	m.AbandonedVolumesDeleted = f.Counter("abandoned_volumes_deleted_total",
		"Volumes deleted because their claim was deleted while they were being provisioned.")
	m.OwnershipConflicts = m.Factory("node_deployment").Counter("ownership_conflicts_total",
		"Conflicts while selecting this node for a claim with Immediate binding (--node-deployment).")
	m.AddCollector(m.PendingClaims)
	return m
}
