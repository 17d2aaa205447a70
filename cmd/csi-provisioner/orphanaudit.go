package main

import (
	"github.com/container-storage-interface/spec/lib/go/csi"
	"k8s.io/client-go/informers"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/orphanaudit"
)

// newOrphanAudit builds the orphan audit when --orphan-audit-interval is
// set and the driver can list its volumes; nil otherwise.
func newOrphanAudit(logger klog.Logger, o controllersOptions, factory informers.SharedInformerFactory, provisioner *controller.Provisioner) (*orphanaudit.Controller, error) {
	cfg := o.Config
	if cfg.orphanAuditInterval == 0 {
		return nil, nil
	}
	if !o.Driver.ControllerCapabilities[csi.ControllerServiceCapability_RPC_LIST_VOLUMES] {
		logger.Info("Warning: --orphan-audit-interval is ignored: the driver does not report the LIST_VOLUMES capability")
		return nil, nil
	}
	logger.Info("Orphan audit is on", "interval", cfg.orphanAuditInterval, "gracePeriod", cfg.orphanAuditGracePeriod)
	volumes := factory.Core().V1().PersistentVolumes()
	claims := factory.Core().V1().PersistentVolumeClaims()
	return orphanaudit.New(orphanaudit.Options{
		CSIClient:                 csi.NewControllerClient(o.Conn),
		Timeout:                   cfg.timeout,
		VolumeLister:              volumes.Lister(),
		VolumeSynced:              volumes.Informer().HasSynced,
		ClaimLister:               claims.Lister(),
		ClaimSynced:               claims.Informer().HasSynced,
		VolumeHandle:              provisioner.VolumeHandle,
		AbandonedVolumeAnnotation: controller.AnnAbandonedVolume,
		Interval:                  cfg.orphanAuditInterval,
		GracePeriod:               cfg.orphanAuditGracePeriod,
		Metrics:                   o.OrphanAuditMetrics,
	})
}
