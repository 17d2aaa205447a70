package main

import (
	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"github.com/prometheus/client_golang/prometheus"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection" // leader election metrics in the legacy registry
	_ "k8s.io/component-base/metrics/prometheus/workqueue"               // work queue metrics in the legacy registry
	libmetrics "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
	"github.com/csi-protect/external-provisioner/pkg/adaptive"
	"github.com/csi-protect/external-provisioner/pkg/claimprotection"
	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/cleanup"
	"github.com/csi-protect/external-provisioner/pkg/orphanaudit"
	"github.com/csi-protect/external-provisioner/pkg/pvcprotection"
	"github.com/csi-protect/external-provisioner/pkg/pvprotection"
	"github.com/csi-protect/external-provisioner/pkg/recyclebin"
	"github.com/csi-protect/external-provisioner/pkg/snapshotprotection"
)

// runMetrics are one run's metrics, in a registry of the run's own: a
// second run in the same process (a test) starts from zero and never
// registers a metric twice. Every family is served even while its gate is
// off, at zero, so dashboards need not know the gates.
type runMetrics struct {
	registry           k8smetrics.KubeRegistry
	lib                libmetrics.Metrics
	provisioner        *controller.Metrics
	claimProtection    *claimprotection.Metrics
	pvProtection       *pvprotection.Metrics
	pvcProtection      *pvcprotection.Metrics
	cleanup            *cleanup.Metrics
	snapshotProtection *snapshotprotection.Metrics
	orphanAudit        *orphanaudit.Metrics
	recycleBin         *recyclebin.Metrics
	adaptive           *adaptive.Metrics
	// leading is 1 while this replica runs the controllers (it holds the
	// Lease, or runs without leader election), by driver: leader
	// election's own gauge (leader_election_master_status) has no series
	// on a replica that never led, so it cannot tell that none leads.
	leading *k8smetrics.GaugeVec
}

func newRunMetrics() *runMetrics {
	m := &runMetrics{
		registry: k8smetrics.NewKubeRegistry(),
		// The provisioning library's counters
		// (controller_persistentvolumeclaim_provision_total and friends).
		lib:                libmetrics.New("controller"),
		provisioner:        controller.NewMetrics(),
		claimProtection:    claimprotection.NewMetrics(),
		pvProtection:       pvprotection.NewMetrics(),
		pvcProtection:      pvcprotection.NewMetrics(),
		cleanup:            cleanup.NewMetrics(),
		snapshotProtection: snapshotprotection.NewMetrics(),
		orphanAudit:        orphanaudit.NewMetrics(),
		recycleBin:         recyclebin.NewMetrics(),
		adaptive:           adaptive.NewMetrics(),
		leading: k8smetrics.NewGaugeVec(&k8smetrics.GaugeOpts{
			Namespace: "csi_provisioner", Subsystem: "leader_election", Name: "leading",
			Help:           "1 while this replica runs the controllers for the driver: it holds the leader-election Lease, or runs without leader election; 0 while it waits for the Lease.",
			StabilityLevel: k8smetrics.ALPHA,
		}, []string{"driver_name"}),
	}
	m.registry.RawMustRegister(
		m.lib.PersistentVolumeClaimProvisionTotal,
		m.lib.PersistentVolumeClaimProvisionFailedTotal,
		m.lib.PersistentVolumeClaimProvisionDurationSeconds,
		m.lib.PersistentVolumeDeleteTotal,
		m.lib.PersistentVolumeDeleteFailedTotal,
		m.lib.PersistentVolumeDeleteDurationSeconds,
	)
	for _, set := range []*metricsutil.Set{
		&m.provisioner.Set, &m.claimProtection.Set, &m.pvProtection.Set, &m.pvcProtection.Set, &m.cleanup.Set,
		&m.snapshotProtection.Set, &m.orphanAudit.Set, &m.recycleBin.Set, &m.adaptive.Set,
	} {
		set.MustRegisterIn(m.registry)
	}
	m.registry.MustRegister(m.leading)
	return m
}

// gatherers are the registries the metrics endpoint serves, upstream's:
// the legacy one, which carries the work queue, leader election, Go runtime
// and process metrics (client-go takes their providers once per process),
// the CSI call metrics and the run's registry.
func (m *runMetrics) gatherers(csiCalls metrics.CSIMetricsManager) prometheus.Gatherers {
	return prometheus.Gatherers{legacyregistry.DefaultGatherer, csiCalls.GetRegistry(), m.registry}
}

// newMetricsManager returns the CSI call metrics manager.
//
// For a driver that replaces an in-tree plugin (migrated), the CSI call
// metrics get upstream's "migrated" label, "true" for the CreateVolume and
// DeleteVolume calls of in-tree classes and PVs.
func newMetricsManager(migrated bool) metrics.CSIMetricsManager {
	opts := []metrics.MetricsManagerOption{
		// The legacy registry already has process_start_time_seconds;
		// registering it twice would break scraping.
		metrics.WithProcessStartTime(false),
		metrics.WithSubsystem(metrics.SubsystemSidecar),
	}
	if migrated {
		opts = append(opts, metrics.WithMigration())
	}
	return metrics.NewCSIMetricsManagerWithOptions("", opts...) // driver name is set once known
}

// leadingGauge is the driver's series of the leading gauge, served at 0
// from the start, so that a replica waiting for the Lease reports that it
// does not lead.
func leadingGauge(m *runMetrics, driver string) k8smetrics.GaugeMetric {
	g := m.leading.WithLabelValues(driver)
	g.Set(0)
	return g
}
