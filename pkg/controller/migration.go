package controller

import (
	"context"
	"fmt"
	"strconv"

	"github.com/kubernetes-csi/csi-lib-utils/connection"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	csitrans "k8s.io/csi-translation-lib"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/driverscope"
)

// translator converts between the in-tree plugins' StorageClasses and PVs
// and their CSI drivers', as kube-controller-manager and the kubelet do.
var translator = csitrans.New()

// InTreePluginOf returns the in-tree plugin a CSI driver replaces (CSI
// migration), "" for a driver that replaces none.
func InTreePluginOf(driverName string) (string, error) {
	if !translator.IsMigratedCSIDriverByName(driverName) {
		return "", nil
	}
	name, err := translator.GetInTreeNameFromCSIName(driverName)
	if err != nil {
		return "", fmt.Errorf("in-tree plugin of migrated CSI driver %s: %w", driverName, err)
	}
	return name, nil
}

// driver is what this sidecar serves: its driver, and the in-tree plugin
// the driver replaces.
func (p *Provisioner) driver() driverscope.Driver {
	return driverscope.Driver{Name: p.opts.DriverName, InTreePlugin: p.opts.MigratedFrom}
}

// csiClass returns the class as the CSI driver reads it: an in-tree
// plugin's class translated (parameters, fsType and zones to the driver's
// keys), any other as it is. migrated says whether it was translated.
func (p *Provisioner) csiClass(ctx context.Context, class *storagev1.StorageClass) (*storagev1.StorageClass, bool, error) {
	if p.opts.MigratedFrom == "" || class.Provisioner != p.opts.MigratedFrom {
		return class, false, nil
	}
	klog.FromContext(ctx).V(4).Info("Translating the in-tree plugin's StorageClass to CSI", "plugin", p.opts.MigratedFrom)
	translated, err := translator.TranslateInTreeStorageClassToCSI(klog.FromContext(ctx), p.opts.MigratedFrom, class)
	if err != nil {
		return nil, false, errTranslation{fmt.Errorf("failed to translate storage class: %w", err)}
	}
	return translated, true, nil
}

// csiVolume returns a PV as the CSI driver reads it: a PV of an in-tree
// plugin (provisioned before migration, or by this sidecar for an in-tree
// class) translated, with its handle built from the in-tree source.
func (p *Provisioner) csiVolume(ctx context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, bool, error) {
	if p.opts.MigratedFrom == "" || pv.Spec.CSI != nil || !translator.IsPVMigratable(pv) {
		return pv, false, nil
	}
	translated, err := translator.TranslateInTreePVToCSI(klog.FromContext(ctx), pv)
	if err != nil {
		return nil, false, fmt.Errorf("translating in-tree persistentvolume %s to CSI: %w", pv.Name, err)
	}
	return translated, true, nil
}

// inTreeVolume writes a new PV of a translated class the way the in-tree
// plugin wrote it, so that everything reading in-tree PVs keeps working.
func inTreeVolume(pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	translated, err := translator.TranslateCSIPVToInTree(pv)
	if err != nil {
		return nil, fmt.Errorf("translating the CSI persistentvolume %s to in-tree: %w", pv.Name, err)
	}
	return translated, nil
}

// withMigrated labels the CSI call made with ctx in
// csi_sidecar_operations_seconds (label "migrated"), as upstream does for
// CreateVolume and DeleteVolume.
func withMigrated(ctx context.Context, migrated bool) context.Context {
	return context.WithValue(ctx, connection.AdditionalInfoKey, connection.AdditionalInfo{Migrated: strconv.FormatBool(migrated)})
}

// errTranslation: the class cannot be translated; it would fail the same
// way on every attempt.
type errTranslation struct{ error }

func (e errTranslation) Unwrap() error { return e.error }

// VolumeHandle is the driver's handle of a PV, "" for a PV of another
// driver; an in-tree PV of the plugin the driver replaces has one too.
func (p *Provisioner) VolumeHandle(pv *v1.PersistentVolume) string {
	pv, _, err := p.csiVolume(context.Background(), pv)
	if err != nil || pv.Spec.CSI == nil || pv.Spec.CSI.Driver != p.opts.DriverName {
		return ""
	}
	return pv.Spec.CSI.VolumeHandle
}
