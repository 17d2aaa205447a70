package main

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/workqueue" // work queue metrics in the legacy registry
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/agent"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"
)

// agentMetrics are the agent's metrics, registered once in the legacy
// registry.
var agentMetrics = sync.OnceValue(func() *agent.Metrics {
	m := agent.NewMetrics()
	legacyregistry.MustRegister(m.Registerables()...)
	return m
})

// run connects to the API server and runs the agent until ctx ends.
func run(ctx context.Context, cfg *config, getenv func(string) string) error {
	logger := klog.FromContext(ctx)
	logger.Info("Version", "version", version)
	rc, err := restConfig(logger, cfg, getenv)
	if err != nil {
		return err
	}
	client, localClient, err := newClients(rc)
	if err != nil {
		return err
	}
	return runAgent(ctx, cfg, client, localClient)
}

// runAgent builds the agent on the host's devices and runs it, with the
// metrics server and the event recorder, until ctx ends or the server
// fails.
func runAgent(ctx context.Context, cfg *config, client kubernetes.Interface, localClient versioned.Interface) error {
	recorder := newEventRecorder(ctx, client)
	a, err := agent.New(agentOptions(cfg, client, localClient, recorder))
	if err != nil {
		return err
	}

	// runCtx also ends when the HTTP server fails.
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if cfg.httpEndpoint != "" {
		srv, err := cmdutil.StartHTTPServer(ctx, cmdutil.HTTPServerOptions{
			Address: cfg.httpEndpoint, Handler: newMux(), AddressName: "--http-endpoint", What: "metrics and health check",
		})
		if err != nil {
			return err
		}
		defer func() {
			if err := srv.Shutdown(ctx); err != nil {
				klog.FromContext(ctx).Error(err, "Stopping the HTTP server")
			}
		}()
		go func() {
			select {
			case err := <-srv.Failed:
				cancel(err)
			case <-runCtx.Done():
			}
		}()
	}

	recorder.Start()
	defer recorder.Stop()
	if err := a.Run(runCtx); err != nil {
		return err
	}
	// Run returns nil when its context ends: a signal is a clean stop, a
	// failed server is not.
	if ctx.Err() == nil {
		if cause := context.Cause(runCtx); cause != nil {
			return fmt.Errorf("local volume agent stopped: %w", cause)
		}
	}
	return nil
}

// agentOptions wires the agent to the real host: lsblk, blkid and wipefs
// each bounded by --command-timeout, the host filesystem, O_EXCL opens and
// the host's mountinfo.
func agentOptions(cfg *config, client kubernetes.Interface, localClient versioned.Interface, recorder *cmdutil.EventRecorder) agent.Options {
	runner := devices.ExecRunner{Timeout: cfg.commandTimeout}
	checker := devices.NewOSChecker(runner)
	checker.MountInfoPath = cfg.mountInfoPath
	return agent.Options{
		NodeName:    cfg.nodeName,
		SymlinkRoot: cfg.symlinkRoot,
		Client:      client,
		LocalClient: localClient,
		Runner:      runner,
		FS:          devices.OSFS{},
		Checker:     checker,
		// Verify: a wipe that left a signature is a failed wipe (retried,
		// the PV is not deleted).
		Wiper:         devices.WipefsWiper{Runner: runner, FS: devices.OSFS{}, Verify: devices.BlkidProber{Runner: runner}},
		EventRecorder: recorder,
		Metrics:       agentMetrics(),
		Resync:        cfg.resync,
	}
}
