package agent

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
)

// Annotations the agent writes on the PVs it creates.
const (
	// AnnotationDeviceKernelPath and AnnotationDeviceStableName record the
	// device a PV was created from: its kernel path at that time (/dev/sdb,
	// which may change after a reboot) and the stable name its symlink
	// points at (/dev/disk/by-id/..., which does not).
	AnnotationDeviceKernelPath = "local.storage.csi-protect.io/device-kernel-path"
	AnnotationDeviceStableName = "local.storage.csi-protect.io/device-stable-name"

	// AnnotationWipeStarted is written on a released PV before its device
	// is wiped; its value is the kernel path about to be wiped.
	AnnotationWipeStarted = "local.storage.csi-protect.io/wipe-started"
	// AnnotationWiped is written once the wipe succeeded; its value is the
	// kernel path that was wiped. A PV carrying it is never wiped again.
	AnnotationWiped = "local.storage.csi-protect.io/wiped"
)

// Event reasons.
const (
	// On a LocalVolume or LocalVolumeSet.
	ReasonDeviceRejected = "DeviceRejected"
	ReasonVolumeCreated  = "VolumeCreated"
	ReasonSymlinkFailed  = "SymlinkFailed"
	ReasonCreateFailed   = "VolumeCreateFailed"

	// On a PV.
	ReasonVolumeWiped       = "VolumeWiped"
	ReasonWipeRefused       = "WipeRefused"
	ReasonWipeFailed        = "WipeFailed"
	ReasonSymlinkRemoved    = "SymlinkRemoved"
	ReasonSymlinkNotRemoved = "SymlinkNotRemoved"
)

// Kinds of the owner objects, as in the OwnerKindLabel of a PV.
const (
	KindLocalVolume    = local.KindLocalVolume
	KindLocalVolumeSet = local.KindLocalVolumeSet
)

// PVName is the name of the PV for the symlink symlinkPath on node
// nodeName: "local-pv-" and the first 8 bytes of
// sha256(nodeName + "\x00" + symlinkPath) in hex. The same disk on the same
// node always gets the same name, so a create repeated after a lost answer
// or a restart fails with AlreadyExists instead of making a second PV for
// one disk.
func PVName(nodeName, symlinkPath string) string {
	sum := sha256.Sum256([]byte(nodeName + "\x00" + symlinkPath))
	return "local-pv-" + hex.EncodeToString(sum[:8])
}
