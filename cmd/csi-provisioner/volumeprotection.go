package main

import (
	"context"
	"fmt"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/features"
	"github.com/csi-protect/external-provisioner/pkg/pvcprotection"
	"github.com/csi-protect/external-provisioner/pkg/pvprotection"
)

// volumeProtectionOptions are what newPVProtection and newPVCProtection
// read, but for their metrics.
type volumeProtectionOptions struct {
	Config *config
	// Client is the protection client (see kubeClients.protection).
	Client kubernetes.Interface
	// Factory gives PVC protection the Pods it watches, only when it runs.
	Factory       informers.SharedInformerFactory
	Driver        *csiDriver
	EventRecorder record.EventRecorder
}

// newPVProtection builds the PV protection controller, nil unless its gate
// is on.
func newPVProtection(logger klog.Logger, o volumeProtectionOptions, m *pvprotection.Metrics) (worker, error) {
	cfg := o.Config
	if !cfg.gates.Enabled(features.PVProtection) {
		return nil, nil
	}
	logger.Info("PV protection is on", "scope", cfg.protectionScope)
	ctrl, err := pvprotection.New(pvprotection.Options{
		Client:         o.Client,
		VolumeInformer: o.Factory.Core().V1().PersistentVolumes(),
		DriverName:     o.Driver.Name,
		InTreePlugin:   o.Driver.MigratedFrom,
		AllVolumes:     cfg.protectionScope == protectionScopeAll,
		EventRecorder:  o.EventRecorder,
		Metrics:        m,
		RateLimiter:    workqueue.NewTypedItemExponentialFailureRateLimiter[string](cfg.retryIntervalStart, cfg.retryIntervalMax),
	})
	if err != nil {
		return nil, fmt.Errorf("creating PV protection controller: %w", err)
	}
	threads := int(cfg.volumeProtectionThreads)
	return func(ctx context.Context) { ctrl.Run(ctx, threads) }, nil
}

// newPVCProtection builds the PVC protection controller, nil unless its
// gate is on. Pods are watched only for it.
func newPVCProtection(logger klog.Logger, o volumeProtectionOptions, m *pvcprotection.Metrics) (worker, error) {
	cfg := o.Config
	if !cfg.gates.Enabled(features.PVCProtection) {
		return nil, nil
	}
	logger.Info("PVC protection is on", "scope", cfg.protectionScope)
	ctrl, err := pvcprotection.New(pvcprotection.Options{
		Client:        o.Client,
		ClaimInformer: o.Factory.Core().V1().PersistentVolumeClaims(),
		PodInformer:   o.Factory.Core().V1().Pods(),
		ClassLister:   o.Factory.Storage().V1().StorageClasses().Lister(),
		DriverName:    o.Driver.Name,
		InTreePlugin:  o.Driver.MigratedFrom,
		AllClaims:     cfg.protectionScope == protectionScopeAll,
		EventRecorder: o.EventRecorder,
		Metrics:       m,
		RateLimiter:   workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](cfg.retryIntervalStart, cfg.retryIntervalMax),
	})
	if err != nil {
		return nil, fmt.Errorf("creating PVC protection controller: %w", err)
	}
	threads := int(cfg.volumeProtectionThreads)
	return func(ctx context.Context) { ctrl.Run(ctx, threads) }, nil
}
