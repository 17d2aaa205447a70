package controller

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

// Provisioner provisions and deletes volumes through a CSI driver. It
// implements the lib's Provisioner, BlockProvisioner and Qualifier.
type Provisioner struct {
	opts Options
}

var (
	_ controller.Provisioner      = &Provisioner{}
	_ controller.BlockProvisioner = &Provisioner{}
	_ controller.Qualifier        = &Provisioner{}
)

// New returns a Provisioner for the driver described by opts.
func New(opts Options) (*Provisioner, error) {
	return &Provisioner{opts: opts}, nil
}

// Provision is being written.
func (p *Provisioner) Provision(ctx context.Context, o controller.ProvisionOptions) (*v1.PersistentVolume, controller.ProvisioningState, error) {
	return nil, controller.ProvisioningFinished, errors.New("not implemented")
}

// Delete is being written.
func (p *Provisioner) Delete(ctx context.Context, pv *v1.PersistentVolume) error {
	return errors.New("not implemented")
}

// SupportsBlock reports that raw block claims may be sent to the driver.
func (p *Provisioner) SupportsBlock(ctx context.Context) bool { return true }

// ShouldProvision is being written.
func (p *Provisioner) ShouldProvision(ctx context.Context, claim *v1.PersistentVolumeClaim) bool {
	return false
}
