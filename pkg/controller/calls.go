package controller

import (
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// CallTracker is where the provisioner records its CreateVolume calls, so
// that the claim protection controller knows which may be running. A
// provisionstate.Tracker fits; cmd/csi-provisioner hands the same one to both.
type CallTracker interface {
	// Begin marks a call for the claim as started and returns what was
	// known before; false if another call for it is running.
	Begin(uid types.UID) (provisionstate.CallState, bool)
	// End records how the call ended.
	End(uid types.UID, state provisionstate.CallState)
	// Forget drops the record of a claim whose volume is gone.
	Forget(uid types.UID)
}

// SourceReaders is where the provisioner records the restores it runs, so
// that the snapshot protection controller keeps their source snapshots. A
// provisionstate.Readers fits; cmd/csi-provisioner hands the same one to both.
type SourceReaders interface {
	Begin(source cache.ObjectName)
	End(source cache.ObjectName)
}
