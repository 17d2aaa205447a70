package main

import (
	"sync"

	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection" // leader election metrics in the legacy registry
	_ "k8s.io/component-base/metrics/prometheus/workqueue"               // work queue metrics in the legacy registry
	libmetrics "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller/metrics"

	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/cleanup"
	"github.com/csi-protect/external-provisioner/pkg/pvcprotection"
	"github.com/csi-protect/external-provisioner/pkg/pvprotection"
)

// newMetricsManager returns the CSI call metrics manager. Its handler also
// serves the legacy registry, which carries the work queue, leader election,
// Go runtime and process metrics and the provisioning counters, so one
// endpoint exposes what upstream exposes.
func newMetricsManager() metrics.CSIMetricsManager {
	m := metrics.NewCSIMetricsManagerWithOptions("", // driver name is set once known
		// The legacy registry already has process_start_time_seconds;
		// registering it twice would break scraping.
		metrics.WithProcessStartTime(false),
		metrics.WithSubsystem(metrics.SubsystemSidecar),
	)
	return m.WithAdditionalRegistry(legacyregistry.DefaultGatherer)
}

// libMetrics returns the provisioning counters of the provisioning library
// (controller_persistentvolumeclaim_provision_total and friends), registered
// once in the legacy registry.
var libMetrics = sync.OnceValue(func() libmetrics.Metrics {
	m := libmetrics.New("controller")
	legacyregistry.Registerer().MustRegister(
		m.PersistentVolumeClaimProvisionTotal,
		m.PersistentVolumeClaimProvisionFailedTotal,
		m.PersistentVolumeClaimProvisionDurationSeconds,
		m.PersistentVolumeDeleteTotal,
		m.PersistentVolumeDeleteFailedTotal,
		m.PersistentVolumeDeleteDurationSeconds,
	)
	return m
})

// protectionMetrics returns the provisioning protection metrics, registered
// once in the legacy registry.
var protectionMetrics = sync.OnceValue(func() *controller.ProtectionMetrics {
	m := controller.NewProtectionMetrics()
	legacyregistry.MustRegister(m.Registerables()...)
	return m
})

// pvProtectionMetrics and pvcProtectionMetrics are the PV and PVC
// protection metrics, registered once in the legacy registry. They are
// served even while their gate is off, at zero, so dashboards need not
// know the gates.
var pvProtectionMetrics = sync.OnceValue(func() *pvprotection.Metrics {
	m := pvprotection.NewMetrics()
	legacyregistry.MustRegister(m.Registerables()...)
	return m
})

var pvcProtectionMetrics = sync.OnceValue(func() *pvcprotection.Metrics {
	m := pvcprotection.NewMetrics()
	legacyregistry.MustRegister(m.Registerables()...)
	return m
})

var localVolumeCleanupMetrics = sync.OnceValue(func() *cleanup.Metrics {
	m := cleanup.NewMetrics()
	legacyregistry.MustRegister(m.Registerables()...)
	return m
})
