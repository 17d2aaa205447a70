package agent

import (
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

// Wipe results, the values of the result label of wipes_total.
const (
	WipeResultOK      = "ok"
	WipeResultFailed  = "failed"
	WipeResultRefused = "refused"
)

// Metrics tell an operator what the node agent is doing.
type Metrics struct {
	metricsutil.Set
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

// NewMetrics returns unregistered metrics; the Set lists them for the
// caller's registry.
func NewMetrics() *Metrics {
	m := &Metrics{}
	f := m.Factory("local_volume_agent")
	m.VolumesCreated = f.Counter("volumes_created_total",
		"Local PersistentVolumes created by the node agent.")
	m.Wipes = f.CounterVec("wipes_total",
		"Wipes of released local volumes, by result: ok, failed, refused (device not safe to wipe).", "result")
	m.VolumesDeleted = f.Counter("volumes_deleted_total",
		"Cleaned local PersistentVolumes deleted by the node agent.")
	m.SymlinksRemoved = f.Counter("symlinks_removed_total",
		"Device symlinks removed from the node because their LocalVolume or LocalVolumeSet was deleted.")
	return m
}
