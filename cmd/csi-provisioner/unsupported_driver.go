package main

import (
	"context"
	"errors"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/capacity"
	"github.com/csi-protect/external-provisioner/pkg/csiconn"
)

// provisioningUnsupported returns why the driver cannot provision, in
// upstream's words, or nil if it can.
func provisioningUnsupported(d *csiconn.DriverInfo) error {
	switch {
	case !d.PluginCapabilities[csi.PluginCapability_Service_CONTROLLER_SERVICE]:
		return errors.New("CSI driver does not support dynamic provisioning: plugin CONTROLLER_SERVICE capability is not reported")
	case !d.ControllerCapabilities[csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME]:
		return errors.New("CSI driver does not support dynamic provisioning: controller CREATE_DELETE_VOLUME capability is not reported")
	}
	return nil
}

// unsupportedProvisioner fails every Provision and Delete with err, as
// upstream's provisioner does for a driver that cannot provision: the
// sidecar starts, claims and released PVs get a failure event each, and
// the driver is never asked to create or delete a volume.
type unsupportedProvisioner struct {
	capacity.Provisioner
	err error
}

func (p unsupportedProvisioner) Provision(context.Context, libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
	return nil, libcontroller.ProvisioningFinished, p.err
}

func (p unsupportedProvisioner) Delete(context.Context, *v1.PersistentVolume) error {
	return p.err
}
