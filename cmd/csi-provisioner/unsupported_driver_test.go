package main

import (
	"context"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"
	v1 "k8s.io/api/core/v1"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/csiconn"
)

// countingProvisioner counts the calls that would reach the driver.
type countingProvisioner struct{ provisions, deletes int }

func (p *countingProvisioner) Provision(context.Context, libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
	p.provisions++
	return &v1.PersistentVolume{}, libcontroller.ProvisioningFinished, nil
}
func (p *countingProvisioner) Delete(context.Context, *v1.PersistentVolume) error {
	p.deletes++
	return nil
}
func (p *countingProvisioner) SupportsBlock(context.Context) bool { return true }
func (p *countingProvisioner) ShouldProvision(context.Context, *v1.PersistentVolumeClaim) bool {
	return true
}
func (p *countingProvisioner) ShouldDelete(context.Context, *v1.PersistentVolume) bool { return true }

func TestUnsupportedProvisionerFailsAsUpstream(t *testing.T) {
	controllerService := rpc.PluginCapabilitySet{csi.PluginCapability_Service_CONTROLLER_SERVICE: true}
	for _, tc := range []struct {
		name    string
		driver  csiconn.DriverInfo
		wantErr string
	}{
		{"no controller service", csiconn.DriverInfo{PluginCapabilities: rpc.PluginCapabilitySet{}},
			"CSI driver does not support dynamic provisioning: plugin CONTROLLER_SERVICE capability is not reported"},
		{"no CREATE_DELETE_VOLUME", csiconn.DriverInfo{PluginCapabilities: controllerService, ControllerCapabilities: rpc.ControllerCapabilitySet{
			csi.ControllerServiceCapability_RPC_PUBLISH_UNPUBLISH_VOLUME: true,
		}}, "CSI driver does not support dynamic provisioning: controller CREATE_DELETE_VOLUME capability is not reported"},
		{"provisioning driver", csiconn.DriverInfo{PluginCapabilities: controllerService, ControllerCapabilities: rpc.ControllerCapabilitySet{
			csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME: true,
		}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := provisioningUnsupported(&tc.driver)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("got %v, want none", err)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("got %v, want upstream's %q", err, tc.wantErr)
			}

			inner := &countingProvisioner{}
			p := unsupportedProvisioner{Provisioner: inner, err: err}
			pv, state, perr := p.Provision(context.Background(), libcontroller.ProvisionOptions{})
			if pv != nil || state != libcontroller.ProvisioningFinished || perr != err {
				t.Errorf("Provision: %v, %q, %v; want no PV, ProvisioningFinished and %v", pv, state, perr, err)
			}
			if derr := p.Delete(context.Background(), &v1.PersistentVolume{}); derr != err {
				t.Errorf("Delete: %v, want %v", derr, err)
			}
			if inner.provisions != 0 || inner.deletes != 0 {
				t.Errorf("%d provisions and %d deletes reached the driver", inner.provisions, inner.deletes)
			}
		})
	}
}
