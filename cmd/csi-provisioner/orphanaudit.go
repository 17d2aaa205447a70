package main

import (
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/orphanaudit"
)

// orphanAuditOptions are what newOrphanAudit reads.
type orphanAuditOptions struct {
	Config  *config
	Driver  *csiDriver
	Volumes coreinformers.PersistentVolumeInformer
	Claims  coreinformers.PersistentVolumeClaimInformer
	// Provisioner tells a PV's volume handle as the driver knows it.
	Provisioner *controller.Provisioner
	// Metrics are served even while the audit is off.
	Metrics *orphanaudit.Metrics
}

// newOrphanAudit builds the orphan audit when --orphan-audit-interval is
// set and the driver can list its volumes; nil otherwise.
func newOrphanAudit(logger klog.Logger, o orphanAuditOptions) (worker, error) {
	cfg := o.Config
	if cfg.orphanAuditInterval == 0 {
		return nil, nil
	}
	if !o.Driver.ControllerCapabilities[csi.ControllerServiceCapability_RPC_LIST_VOLUMES] {
		logger.Info("Warning: --orphan-audit-interval is ignored: the driver does not report the LIST_VOLUMES capability")
		return nil, nil
	}
	logger.Info("Orphan audit is on", "interval", cfg.orphanAuditInterval, "gracePeriod", cfg.orphanAuditGracePeriod)
	ctrl, err := orphanaudit.New(orphanaudit.Options{
		CSIClient:                 csi.NewControllerClient(o.Driver.Conn),
		Timeout:                   cfg.timeout,
		VolumeLister:              o.Volumes.Lister(),
		VolumeSynced:              o.Volumes.Informer().HasSynced,
		ClaimLister:               o.Claims.Lister(),
		ClaimSynced:               o.Claims.Informer().HasSynced,
		VolumeHandle:              o.Provisioner.VolumeHandle,
		DriverVolumeName:          o.Provisioner.DriverVolumeName,
		AbandonedVolumeAnnotation: controller.AnnAbandonedVolume,
		Interval:                  cfg.orphanAuditInterval,
		GracePeriod:               cfg.orphanAuditGracePeriod,
		Metrics:                   o.Metrics,
	})
	if err != nil {
		return nil, fmt.Errorf("creating orphan audit: %w", err)
	}
	return ctrl.Run, nil
}
