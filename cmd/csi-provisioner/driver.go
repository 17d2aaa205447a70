package main

import (
	"context"

	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"google.golang.org/grpc"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/csiconn"
)

// connectDriver connects to the driver, waits until it is ready and reads
// what it is. A driver that replaces an in-tree plugin (CSI migration) is
// connected to a second time, as upstream does: the CSI call metrics then
// need the "migrated" label, and which driver it is is only known once
// connected. migratedFrom is that plugin, "" for none.
func connectDriver(ctx context.Context, cfg *config) (metrics.CSIMetricsManager, *grpc.ClientConn, *csiconn.DriverInfo, string, error) {
	manager, conn, driver, err := connectAndDiscover(ctx, cfg, false)
	if err != nil {
		return nil, nil, nil, "", err
	}
	migratedFrom, err := controller.InTreePluginOf(driver.Name)
	if err == nil && migratedFrom == "" {
		return manager, conn, driver, "", nil
	}
	conn.Close()
	if err != nil {
		return nil, nil, nil, "", err
	}
	klog.FromContext(ctx).Info("Supports migration from in-tree plugin", "plugin", migratedFrom)
	manager, conn, driver, err = connectAndDiscover(ctx, cfg, true)
	return manager, conn, driver, migratedFrom, err
}

func connectAndDiscover(ctx context.Context, cfg *config, migrated bool) (metrics.CSIMetricsManager, *grpc.ClientConn, *csiconn.DriverInfo, error) {
	manager := newMetricsManager(migrated)
	conn, err := csiconn.Connect(ctx, cfg.csiAddress, manager)
	if err != nil {
		return nil, nil, nil, err
	}
	// A driver that cannot provision is not refused: upstream starts with
	// it (see unsupportedProvisioner).
	driver, err := csiconn.Discover(ctx, conn, cfg.timeout)
	if err != nil {
		conn.Close()
		return nil, nil, nil, err
	}
	manager.SetDriverName(driver.Name)
	return manager, conn, driver, nil
}
