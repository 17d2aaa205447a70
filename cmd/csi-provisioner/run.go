package main

import (
	"context"
	"errors"
	"os"

	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
	"github.com/csi-protect/external-provisioner/pkg/features"
)

// run wires the provisioner and runs it until ctx ends. It returns nil on a
// clean shutdown.
func run(ctx context.Context, cfg *config) error {
	logger := klog.FromContext(ctx)
	logger.Info("Starting csi-provisioner", "version", version)

	rc, err := restConfig(logger, cfg, os.Getenv)
	if err != nil {
		return err
	}
	clients, err := newKubeClients(rc, cfg.protectionLimits(), cfg.eventLimits())
	if err != nil {
		return err
	}

	disabled, err := features.DisableUnservedVolumeAttributesClass(cfg.gates, clients.core.Discovery())
	if err != nil {
		return err
	}
	if disabled {
		logger.Info("Disabling VolumeAttributesClass feature gate because the VolumeAttributesClass v1 API is not available")
	}

	runMetrics := newRunMetrics()
	driver, err := connectDriver(ctx, cfg)
	if err != nil {
		return err
	}
	defer driver.Conn.Close()
	logger = logger.WithValues("driver", driver.Name)
	ctx = klog.NewContext(ctx, logger)
	identity := newIdentity(driver.Name)
	var local *localNode
	if cfg.nodeDeployment {
		if local, err = newLocalNode(ctx, driver.Conn, cfg.timeout, os.Getenv); err != nil {
			return err
		}
		if err := checkNodeDeployment(local, driver.DriverInfo, cfg.gates.Enabled(features.Topology)); err != nil {
			return err
		}
		// Upstream's identity of a node's sidecar ends with its node.
		identity += "-" + local.Name
	}
	logger.Info("Detected CSI driver", "identity", identity)

	recorder := newEventRecorder(ctx, clients.events)
	defer recorder.Stop()

	ctrls, err := newControllers(ctx, controllersOptions{
		Config:        cfg,
		Clients:       clients,
		Metrics:       runMetrics,
		Driver:        driver,
		Identity:      identity,
		EventRecorder: recorder,
		Local:         local,
		Getenv:        os.Getenv,
	})
	if err != nil {
		return err
	}
	recorder.Start()

	address := cfg.httpAddress()
	mux := newMux(muxOptions{
		Gatherers:   runMetrics.gatherers(driver.CallMetrics),
		CSIMetrics:  driver.CallMetrics,
		MetricsPath: cfg.metricsPath,
		EnablePprof: cfg.enablePprof,
	})
	if cfg.enablePprof && address == "" {
		logger.Info("Warning: --enable-pprof has no effect without --http-endpoint")
	}

	runControllers := func(ctx context.Context) error { ctrls.run(ctx); return nil }
	if cfg.leaderElection && local != nil {
		// Every node's sidecar must work at once; one Lease would leave
		// all nodes but one without provisioning.
		logger.Info("Warning: --leader-election is ignored with --node-deployment")
	}
	if cfg.leaderElection && local == nil {
		electorOpts := electorOptions{
			Client:        clients.election,
			LockName:      driver.Name,
			Namespace:     cfg.leaderElectionNamespace,
			LeaseDuration: cfg.leaseDuration,
			RenewDeadline: cfg.renewDeadline,
			RetryPeriod:   cfg.retryPeriod,
			Labels:        cfg.leaderElectionLabels,
			ReleaseOnExit: cfg.gates.Enabled(features.ReleaseLeaderElectionOnExit),
			Work:          ctrls.run,
		}
		if address != "" {
			electorOpts.Mux = mux
		}
		runControllers = newElector(electorOpts).run
	}

	// The diagnostics server failing stops everything, as upstream exits then.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if address != "" {
		srv, err := cmdutil.StartHTTPServer(ctx, cmdutil.HTTPServerOptions{
			Address: address, Handler: mux, AddressName: "diagnostics address", What: "diagnostics",
		})
		if err != nil {
			return err
		}
		defer func() {
			if err := srv.Shutdown(ctx); err != nil {
				logger.Error(err, "Stopping the diagnostics server")
			}
		}()
		go func() {
			select {
			case err := <-srv.Failed:
				cancel(err)
			case <-ctx.Done():
			}
		}()
	}

	if err := runControllers(ctx); err != nil {
		return err
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	logger.Info("Stopped")
	return nil
}
