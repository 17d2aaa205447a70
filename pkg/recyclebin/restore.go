package recyclebin

import (
	"errors"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/pkg/driverscope"
)

// RestoreRequest returns the claim a user asked pv to be given to, if any.
// A value that is not "namespace/name" is an error.
func RestoreRequest(pv *v1.PersistentVolume) (cache.ObjectName, bool, error) {
	value, ok := pv.Annotations[AnnRestoreTo]
	if !ok {
		return cache.ObjectName{}, false, nil
	}
	name, err := cache.ParseObjectName(value)
	if err != nil || name.Namespace == "" || name.Name == "" {
		return cache.ObjectName{}, true, fmt.Errorf("annotation %s=%q does not name a claim as namespace/name", AnnRestoreTo, value)
	}
	return name, true, nil
}

// FitOptions say which PVs are this sidecar's.
type FitOptions struct {
	// Driver is the CSI driver's name.
	Driver string
	// InTreePlugin is the in-tree plugin whose PVs the driver serves
	// under CSI migration, or "".
	InTreePlugin string
}

// Fits returns nil if claim may be given pv: the claim names the PV, waits
// for it, and asks for nothing the volume does not have. Otherwise the
// error lists every misfit, for the events on both objects.
func Fits(pv *v1.PersistentVolume, claim *v1.PersistentVolumeClaim, opts FitOptions) error {
	var misfits []error
	add := func(format string, args ...any) { misfits = append(misfits, fmt.Errorf(format, args...)) }

	if claim.Spec.VolumeName != pv.Name {
		add("the claim's spec.volumeName is %q, not %q", claim.Spec.VolumeName, pv.Name)
	}
	if claim.DeletionTimestamp != nil {
		add("the claim is being deleted")
	}
	if claim.Status.Phase == v1.ClaimBound {
		add("the claim is bound already")
	}
	if !opts.driver().DeletesVolume(pv) {
		add("the volume is not one of driver %s", opts.Driver)
	}
	if pvClass, claimClass := pv.Spec.StorageClassName, ptr.Deref(claim.Spec.StorageClassName, ""); pvClass != claimClass {
		add("the claim's StorageClass is %q, the volume's %q", claimClass, pvClass)
	}
	if want, have := volumeMode(claim.Spec.VolumeMode), volumeMode(pv.Spec.VolumeMode); want != have {
		add("the claim asks for volume mode %s, the volume is %s", want, have)
	}
	for _, mode := range claim.Spec.AccessModes {
		if !slices.Contains(pv.Spec.AccessModes, mode) {
			add("the claim asks for access mode %s, which the volume lacks", mode)
		}
	}
	want := claim.Spec.Resources.Requests[v1.ResourceStorage]
	have := pv.Spec.Capacity[v1.ResourceStorage]
	if want.Cmp(have) > 0 {
		add("the claim asks for %s, the volume has %s", want.String(), have.String())
	}
	return errors.Join(misfits...)
}

// driver is the driver of opts: the bin keeps and gives back the volumes
// it deletes, not a static volume of the in-tree plugin it replaces.
func (opts FitOptions) driver() driverscope.Driver {
	return driverscope.Driver{Name: opts.Driver, InTreePlugin: opts.InTreePlugin}
}

func volumeMode(mode *v1.PersistentVolumeMode) v1.PersistentVolumeMode {
	if mode == nil {
		return v1.PersistentVolumeFilesystem
	}
	return *mode
}
