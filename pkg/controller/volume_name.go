package controller

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// VolumeName is the CSI volume name, and PV name, of a claim.
func (p *Provisioner) VolumeName(claim *v1.PersistentVolumeClaim) (string, error) {
	return volumeName(p.opts.VolumeNamePrefix, string(claim.UID), p.opts.VolumeNameUUIDLength)
}

// volumeName derives the CSI volume name (also the PV name) from the claim
// UID, so that a retried CreateVolume for the same claim is idempotent.
// A negative uuidLength keeps the whole UID; otherwise the UID is stripped of
// dashes and truncated, for backends with short name limits.
func volumeName(prefix, claimUID string, uuidLength int) (string, error) {
	if uuidLength < 0 {
		return fmt.Sprintf("%s-%s", prefix, claimUID), nil
	}
	compact := strings.ReplaceAll(claimUID, "-", "")
	if uuidLength > len(compact) {
		return "", fmt.Errorf("volume name UUID length %d is longer than the claim UID %q", uuidLength, claimUID)
	}
	return fmt.Sprintf("%s-%s", prefix, compact[:uuidLength]), nil
}
