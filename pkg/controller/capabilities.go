package controller

import (
	"errors"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/accessmodes"
	v1 "k8s.io/api/core/v1"
)

// volumeCapabilities builds the CSI capabilities a claim asks for, one per
// access mode as upstream sends them (ReadWriteOncePod included), each with
// the claim's block or mount access type. A driver that cannot serve every
// one of them refuses the request.
func volumeCapabilities(claim *v1.PersistentVolumeClaim, fsType string, mountOptions []string, singleNodeMultiWriter bool) ([]*csi.VolumeCapability, error) {
	if len(claim.Spec.AccessModes) == 0 {
		return nil, errors.New("claim has no access mode")
	}
	capabilities := make([]*csi.VolumeCapability, 0, len(claim.Spec.AccessModes))
	for _, accessMode := range claim.Spec.AccessModes {
		mode, err := accessmodes.ToCSIAccessMode([]v1.PersistentVolumeAccessMode{accessMode}, singleNodeMultiWriter)
		if err != nil {
			// csi-lib-utils' text alone, as upstream reports it.
			return nil, err
		}
		capability := &csi.VolumeCapability{AccessMode: &csi.VolumeCapability_AccessMode{Mode: mode}}
		if isBlock(claim) {
			capability.AccessType = &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}}
		} else {
			capability.AccessType = &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{
				FsType:     fsType,
				MountFlags: mountOptions,
			}}
		}
		capabilities = append(capabilities, capability)
	}
	return capabilities, nil
}

func isBlock(claim *v1.PersistentVolumeClaim) bool {
	return claim.Spec.VolumeMode != nil && *claim.Spec.VolumeMode == v1.PersistentVolumeBlock
}
