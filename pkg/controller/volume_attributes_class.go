package controller

import (
	"context"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// errModifyVolumeNotReported: a claim names a VolumeAttributesClass and the
// driver could never apply one. Upstream's text.
type errModifyVolumeNotReported struct{}

func (errModifyVolumeNotReported) Error() string {
	return "CSI driver does not support VolumeAttributesClass: controller MODIFY_VOLUME capability is not reported"
}

// errOtherDriversClass: the claim's VolumeAttributesClass is for another
// driver. Both fields are immutable, so retrying cannot help until the claim
// names another class. Upstream's text.
type errOtherDriversClass struct{ class, classDriver, driver string }

func (e errOtherDriversClass) Error() string {
	return fmt.Sprintf("VAC %s referenced in PVC is for driver %s which does not match driver name %s", e.class, e.classDriver, e.driver)
}

// attributesClassName is the VolumeAttributesClass a claim is provisioned
// with, "" for none or while the gate is off.
func (p *Provisioner) attributesClassName(claim *v1.PersistentVolumeClaim) string {
	if !p.opts.Features.VolumeAttributesClass || claim.Spec.VolumeAttributesClassName == nil {
		return ""
	}
	return *claim.Spec.VolumeAttributesClassName
}

// checkModifyVolume refuses a class for a driver without MODIFY_VOLUME.
func (p *Provisioner) checkModifyVolume(className string) error {
	if className != "" && !p.opts.ControllerCapabilities[csi.ControllerServiceCapability_RPC_MODIFY_VOLUME] {
		return errModifyVolumeNotReported{}
	}
	return nil
}

// mutableParameters reads the class live, as upstream does: a class created
// after the claim is found on the next retry, and no informer holds every
// class. Its parameters go to CreateVolume unchanged.
func (p *Provisioner) mutableParameters(ctx context.Context, className string) (map[string]string, error) {
	if className == "" {
		return nil, nil
	}
	class, err := p.opts.Client.StorageV1().VolumeAttributesClasses().Get(ctx, className, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if class.DriverName != p.opts.DriverName {
		return nil, errOtherDriversClass{class: className, classDriver: class.DriverName, driver: p.opts.DriverName}
	}
	return class.Parameters, nil
}
