package main

import (
	"context"

	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"google.golang.org/grpc"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/csiconn"
)

// csiDriver is the connected driver: what it is, the connection to it and
// the metrics of the calls made on that connection.
type csiDriver struct {
	*csiconn.DriverInfo
	Conn *grpc.ClientConn
	// CallMetrics are served on the metrics endpoint; they also serve pprof,
	// as upstream's do.
	CallMetrics metrics.CSIMetricsManager
	// MigratedFrom is the in-tree plugin the driver replaces, "" for none.
	MigratedFrom string
}

// connectDriver connects to the driver, waits until it is ready and reads
// what it is. A driver that replaces an in-tree plugin (CSI migration) is
// connected to a second time, as upstream does: the CSI call metrics then
// need the "migrated" label, and which driver it is is only known once
// connected.
func connectDriver(ctx context.Context, cfg *config) (*csiDriver, error) {
	d, err := connectAndDiscover(ctx, cfg, false)
	if err != nil {
		return nil, err
	}
	migratedFrom, err := controller.InTreePluginOf(d.Name)
	if err == nil && migratedFrom == "" {
		return d, nil
	}
	d.Conn.Close()
	if err != nil {
		return nil, err
	}
	klog.FromContext(ctx).Info("Supports migration from in-tree plugin", "plugin", migratedFrom)
	d, err = connectAndDiscover(ctx, cfg, true)
	if err != nil {
		return nil, err
	}
	d.MigratedFrom = migratedFrom
	return d, nil
}

func connectAndDiscover(ctx context.Context, cfg *config, migrated bool) (*csiDriver, error) {
	manager := newMetricsManager(migrated)
	conn, err := csiconn.Connect(ctx, cfg.csiAddress, manager)
	if err != nil {
		return nil, err
	}
	// A driver that cannot provision is not refused: upstream starts with
	// it (see unsupportedProvisioner).
	info, err := csiconn.Discover(ctx, conn, cfg.timeout)
	if err != nil {
		conn.Close()
		return nil, err
	}
	manager.SetDriverName(info.Name)
	return &csiDriver{DriverInfo: info, Conn: conn, CallMetrics: manager}, nil
}
