// Package features defines the feature gates of the provisioner.
//
// The gates live in a gate instance created by New rather than in a
// process-wide global, so that tests and the command can each own one.
package features

import (
	"fmt"

	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
)

// Gates shared with upstream external-provisioner v5.1.0 through v6.3.0, with
// the same names, maturity and defaults so existing --feature-gates values
// keep working.
const (
	// Topology lets the provisioner pass accessibility requirements to drivers
	// that report VOLUME_ACCESSIBILITY_CONSTRAINTS.
	Topology featuregate.Feature = "Topology"

	// HonorPVReclaimPolicy keeps a finalizer on provisioned PVs so that the
	// volume is deleted even when the PV is deleted before its claim.
	HonorPVReclaimPolicy featuregate.Feature = "HonorPVReclaimPolicy"

	// CrossNamespaceVolumeDataSource allows a claim's dataSourceRef to point
	// into another namespace, guarded by ReferenceGrants.
	CrossNamespaceVolumeDataSource featuregate.Feature = "CrossNamespaceVolumeDataSource"

	// VolumeAttributesClass passes VolumeAttributesClass parameters to
	// CreateVolume as mutable parameters.
	VolumeAttributesClass featuregate.Feature = "VolumeAttributesClass"

	// ReleaseLeaderElectionOnExit (upstream v6) gives the leader Lease up
	// when the process is asked to stop, once its controllers have stopped,
	// so that another replica takes over at once instead of after the lease
	// duration.
	ReleaseLeaderElectionOnExit featuregate.Feature = "ReleaseLeaderElectionOnExit"
)

// Gates of this project.
const (
	// ProvisioningProtection protects volumes whose provisioning is in flight.
	ProvisioningProtection featuregate.Feature = "ProvisioningProtection"

	// PVProtection keeps a PersistentVolume from being removed while it is
	// Bound (finalizer kubernetes.io/pv-protection).
	PVProtection featuregate.Feature = "PVProtection"

	// PVCProtection keeps a claim from being removed while a pod that may
	// still use it exists (finalizer kubernetes.io/pvc-protection).
	PVCProtection featuregate.Feature = "PVCProtection"

	// LocalVolumeCleanup cleans up volumes on node-local storage.
	LocalVolumeCleanup featuregate.Feature = "LocalVolumeCleanup"

	// ClaimConditions reports on a pending claim's status, as a condition,
	// what the sidecar is doing for it or waiting for (pkg/claimconditions).
	// It writes persistentvolumeclaims/status, which upstream's RBAC does
	// not grant.
	ClaimConditions featuregate.Feature = "ClaimConditions"
)

// specs is every gate this binary knows.
var specs = map[featuregate.Feature]featuregate.FeatureSpec{
	// Upstream: GA and on, but not locked, so Topology=false is accepted.
	Topology: {Default: true, PreRelease: featuregate.GA},
	// Upstream v5.1.0; v6 made its behaviour permanent and dropped the gate.
	// Kept so that v5 command lines naming it still start.
	HonorPVReclaimPolicy:           {Default: true, PreRelease: featuregate.Beta},
	CrossNamespaceVolumeDataSource: {Default: false, PreRelease: featuregate.Alpha},
	// Upstream v6: GA and on; turned off at start-up where the API server
	// does not serve storage.k8s.io/v1 VolumeAttributesClasses.
	VolumeAttributesClass:       {Default: true, PreRelease: featuregate.GA},
	ReleaseLeaderElectionOnExit: {Default: false, PreRelease: featuregate.Alpha},

	ProvisioningProtection: {Default: true, PreRelease: featuregate.Beta},
	PVProtection:           {Default: false, PreRelease: featuregate.Alpha},
	PVCProtection:          {Default: false, PreRelease: featuregate.Alpha},
	LocalVolumeCleanup:     {Default: false, PreRelease: featuregate.Alpha},
	ClaimConditions:        {Default: false, PreRelease: featuregate.Alpha},
}

// New returns a fresh gate with every known feature at its default, and
// component-base's logging gates (LoggingAlphaOptions, LoggingBetaOptions,
// ContextualLogging), which the logging flags check. Upstream keeps those in
// a gate no flag reaches, so its split-stream options cannot be turned on;
// here --feature-gates=LoggingAlphaOptions=true does.
func New() featuregate.MutableVersionedFeatureGate {
	gate := featuregate.NewFeatureGate()
	if err := gate.Add(specs); err != nil {
		// The table above is static; failing here is a programming error.
		panic(fmt.Sprintf("registering feature gates: %v", err))
	}
	if err := logsapi.AddFeatureGates(gate); err != nil {
		panic(fmt.Sprintf("registering logging feature gates: %v", err))
	}
	return gate
}
