// Package csiconn connects to the CSI driver at start-up and learns what it
// is and what it can do.
package csiconn

import (
	"context"
	"fmt"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/connection"
	"github.com/kubernetes-csi/csi-lib-utils/metrics"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"
	"google.golang.org/grpc"
	"k8s.io/klog/v2"
)

// DriverInfo is what the driver reported about itself.
type DriverInfo struct {
	// Name is the GetPluginInfo name; it is also the provisioner name.
	Name                   string
	PluginCapabilities     rpc.PluginCapabilitySet
	ControllerCapabilities rpc.ControllerCapabilitySet
}

// Connect dials the driver socket and records CSI call metrics on
// metricsManager (nil records none). As upstream does, the process exits if an
// established connection is lost: cached capabilities could be stale after
// the driver restarts, and the kubelet restarts the container cleanly.
func Connect(ctx context.Context, address string, metricsManager metrics.CSIMetricsManager) (*grpc.ClientConn, error) {
	connecting, connected := context.WithCancel(ctx)
	go reportSocketAccess(connecting, address)
	conn, err := connection.Connect(ctx, address, metricsManager,
		connection.OnConnectionLoss(connection.ExitOnConnectionLoss()))
	connected()
	if err != nil {
		return nil, fmt.Errorf("connecting to CSI driver at %q: %w", address, err)
	}
	return conn, nil
}

// Discover waits until the driver reports ready, then reads its name and
// capabilities. timeout bounds each single call.
func Discover(ctx context.Context, conn *grpc.ClientConn, timeout time.Duration) (*DriverInfo, error) {
	logger := klog.FromContext(ctx)

	if err := rpc.ProbeForever(ctx, conn, timeout); err != nil {
		return nil, err
	}

	info := &DriverInfo{}
	err := withTimeout(ctx, timeout, func(ctx context.Context) error {
		name, err := rpc.GetDriverName(ctx, conn)
		if err != nil {
			return fmt.Errorf("getting CSI driver name: %w", err)
		}
		info.Name = name
		return nil
	})
	if err != nil {
		return nil, err
	}

	err = withTimeout(ctx, timeout, func(ctx context.Context) error {
		caps, err := rpc.GetPluginCapabilities(ctx, conn)
		if err != nil {
			return fmt.Errorf("getting plugin capabilities of CSI driver %s: %w", info.Name, err)
		}
		info.PluginCapabilities = caps
		return nil
	})
	if err != nil {
		return nil, err
	}

	// A driver without a controller service need not implement
	// ControllerGetCapabilities; Validate then explains what is missing
	// instead of surfacing an Unimplemented error.
	info.ControllerCapabilities = rpc.ControllerCapabilitySet{}
	if info.PluginCapabilities[csi.PluginCapability_Service_CONTROLLER_SERVICE] {
		err = withTimeout(ctx, timeout, func(ctx context.Context) error {
			caps, err := rpc.GetControllerCapabilities(ctx, conn)
			if err != nil {
				return fmt.Errorf("getting controller capabilities of CSI driver %s: %w", info.Name, err)
			}
			info.ControllerCapabilities = caps
			return nil
		})
		if err != nil {
			return nil, err
		}
	}

	logger.V(2).Info("Discovered CSI driver", "driver", info.Name,
		"pluginCapabilities", info.PluginCapabilities,
		"controllerCapabilities", info.ControllerCapabilities)
	return info, nil
}

// Validate refuses a driver that cannot provision volumes at all.
func (d *DriverInfo) Validate() error {
	if !d.PluginCapabilities[csi.PluginCapability_Service_CONTROLLER_SERVICE] {
		return fmt.Errorf("CSI driver %s does not report the CONTROLLER_SERVICE plugin capability, so it cannot provision volumes", d.Name)
	}
	if !d.ControllerCapabilities[csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME] {
		return fmt.Errorf("CSI driver %s does not report the CREATE_DELETE_VOLUME controller capability, so it cannot provision volumes", d.Name)
	}
	return nil
}

// SupportsTopology reports whether the driver takes accessibility requirements.
func (d *DriverInfo) SupportsTopology() bool {
	return d.PluginCapabilities[csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS]
}

func withTimeout(ctx context.Context, timeout time.Duration, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return f(ctx)
}
