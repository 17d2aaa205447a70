package controller

import (
	v1 "k8s.io/api/core/v1"
)

// PVName is the name of a claim's PV: <prefix>-<UID>, as upstream makes it.
func (p *Provisioner) PVName(claim *v1.PersistentVolumeClaim) (string, error) {
	return p.namer.PVName(claim.UID)
}

// DriverVolumeName is the name CreateVolume gives the driver for a claim:
// the one its provisioning began with, else the one it would begin with
// now. It is the PV name unless --volume-name-template is set.
func (p *Provisioner) DriverVolumeName(claim *v1.PersistentVolumeClaim) (string, error) {
	names, _, err := p.volumeNames(claim)
	return names.driver, err
}
