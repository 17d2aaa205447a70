package agent

import (
	"k8s.io/component-base/metrics"
)

// Wipe results, the values of the result label of wipes_total.
const (
	WipeResultOK      = "ok"
	WipeResultFailed  = "failed"
	WipeResultRefused = "refused"
)

// Metrics tell an operator what the node agent is doing.
type Metrics struct {
	// VolumesCreated counts the PVs the agent created.
	VolumesCreated *metrics.Counter
	// Wipes counts wipe attempts by result: ok, failed (the wipe command
	// failed) and refused (the device was not safe to wipe: in use, gone,
	// not a symlink...).
	Wipes *metrics.CounterVec
	// VolumesDeleted counts the cleaned PVs the agent deleted.
	VolumesDeleted *metrics.Counter
	// SymlinksRemoved counts the symlinks removed because their owner was
	// deleted.
	SymlinksRemoved *metrics.Counter
}

// NewMetrics returns unregistered metrics; Registerables lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	const namespace, subsystem = "csi_provisioner", "local_volume_agent"
	return &Metrics{
		VolumesCreated: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "volumes_created_total",
			Help:           "Local PersistentVolumes created by the node agent.",
			StabilityLevel: metrics.ALPHA,
		}),
		Wipes: metrics.NewCounterVec(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "wipes_total",
			Help:           "Wipes of released local volumes, by result: ok, failed, refused (device not safe to wipe).",
			StabilityLevel: metrics.ALPHA,
		}, []string{"result"}),
		VolumesDeleted: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "volumes_deleted_total",
			Help:           "Cleaned local PersistentVolumes deleted by the node agent.",
			StabilityLevel: metrics.ALPHA,
		}),
		SymlinksRemoved: metrics.NewCounter(&metrics.CounterOpts{
			Namespace: namespace, Subsystem: subsystem, Name: "symlinks_removed_total",
			Help:           "Device symlinks removed from the node because their LocalVolume or LocalVolumeSet was deleted.",
			StabilityLevel: metrics.ALPHA,
		}),
	}
}

// Registerables lists the metrics for registration.
func (m *Metrics) Registerables() []metrics.Registerable {
	return []metrics.Registerable{m.VolumesCreated, m.Wipes, m.VolumesDeleted, m.SymlinksRemoved}
}
