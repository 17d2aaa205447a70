package main

import (
	"context"
	"fmt"

	coreinformers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/controller/library"
	"github.com/csi-protect/external-provisioner/pkg/features"
	"github.com/csi-protect/external-provisioner/pkg/recyclebin"
)

// newBin is the recycle bin the provisioner asks before every deletion. It
// is always there, since a StorageClass may turn retention on with the
// flag at 0; with neither, it reads only the caches and holds nothing.
func newBin(cfg *config, claims coreinformers.PersistentVolumeClaimInformer, classes storageinformers.StorageClassInformer) *recyclebin.Bin {
	return recyclebin.NewBin(recyclebin.BinOptions{
		Policy:  recyclebin.Policy{Default: cfg.volumeRetention},
		Classes: classes.Lister(),
		Claims:  claims.Lister(),
	})
}

// recycleBinOptions are what newRecycleBin reads.
type recycleBinOptions struct {
	Config        *config
	Driver        *csiDriver
	Client        kubernetes.Interface
	Volumes       coreinformers.PersistentVolumeInformer
	Claims        coreinformers.PersistentVolumeClaimInformer
	Bin           *recyclebin.Bin
	Provisioner   *controller.Provisioner
	EventRecorder record.EventRecorder
	Metrics       *recyclebin.Metrics
}

// newRecycleBin builds the controller that records, expires, purges and
// gives back retained volumes.
func newRecycleBin(logger klog.Logger, o recycleBinOptions) (worker, error) {
	if o.Config.volumeRetention > 0 {
		logger.Info("Recycle bin is on", "retention", o.Config.volumeRetention)
	}
	ctrl, err := recyclebin.New(recyclebin.Options{
		Client:           o.Client,
		VolumeInformer:   o.Volumes,
		ClaimInformer:    o.Claims,
		Bin:              o.Bin,
		Fit:              recyclebin.FitOptions{Driver: o.Driver.Name, InTreePlugin: o.Driver.MigratedFrom},
		HandOver:         o.Provisioner.Library().RequeueVolume,
		DeleteVolume:     o.Provisioner.Delete,
		LibraryFinalizer: libraryFinalizer(o.Config),
		Owns:             o.Provisioner.OwnsVolume,
		EventRecorder:    o.EventRecorder,
		Metrics:          o.Metrics,
	})
	if err != nil {
		return nil, fmt.Errorf("creating recycle bin controller: %w", err)
	}
	return func(ctx context.Context) { ctrl.Run(ctx, 1) }, nil
}

// libraryFinalizer is the PV finalizer the provisioning library keeps, ""
// when HonorPVReclaimPolicy is off and it keeps none.
func libraryFinalizer(cfg *config) string {
	if !cfg.gates.Enabled(features.HonorPVReclaimPolicy) {
		return ""
	}
	return library.PVFinalizer
}
