package main

import (
	"context"
	"sync"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/record"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// controllersOptions are what newControllers reads, each built once by run.
type controllersOptions struct {
	Config  *config
	Clients *kubeClients
	// Metrics are registered already; families of controllers that are off
	// are served too, at zero.
	Metrics       *runMetrics
	Driver        *csiDriver
	Identity      string
	EventRecorder record.EventRecorder
	// Local is this sidecar's node with --node-deployment, else nil.
	Local *localNode
	// Getenv finds capacity tracking's namespace and owner.
	Getenv func(string) string
}

// worker runs one controller until ctx ends.
type worker func(ctx context.Context)

// controllers are every controller of the sidecar and the informers they
// read. They run only while this instance leads.
type controllers struct {
	factory     informers.SharedInformerFactory
	dataSources *dataSources
	// capacity is nil unless --enable-capacity and the driver reports
	// capacity.
	capacity *capacityTracking
	// workers run once the caches have synced, each in a goroutine of its
	// own; nil ones are controllers that are off.
	workers []worker
	// provisioning runs last, in run's goroutine.
	provisioning *libcontroller.ProvisionController
	// leading is 1 while run runs, 0 before and after.
	leading k8smetrics.GaugeMetric
}

// newControllers builds every controller, each from what it reads.
// Informers are only created here; they start in run, once leadership is
// won.
func newControllers(ctx context.Context, o controllersOptions) (*controllers, error) {
	logger := klog.FromContext(ctx)
	cfg, clients, metrics, drv := o.Config, o.Clients, o.Metrics, o.Driver
	feats := featuresFrom(cfg.gates)

	factory := newInformerFactory(clients.core)
	claims := factory.Core().V1().PersistentVolumeClaims()
	volumes := factory.Core().V1().PersistentVolumes()
	classes := factory.Storage().V1().StorageClasses()
	topology := newNodeTopology(logger, nodeTopologyOptions{Config: cfg, Driver: drv, Local: o.Local, Gate: feats.Topology, Factory: factory})
	// One tracker of CreateVolume calls, which the provisioner writes and
	// the claim protection controller reads.
	calls := provisionstate.NewTracker()
	// The driver's refusals, which the provisioner records for the claim
	// conditions controller; nil with its gate off.
	driverErrors := newDriverErrors(cfg)
	bin := newBin(cfg, claims, classes)

	sources, err := newDataSources(ctx, dataSourcesOptions{
		Config: cfg, Client: clients.core, SnapshotClient: clients.snapshots, DynamicClient: clients.dynamic,
		RestoresSupported: restoresSupported(drv.ControllerCapabilities), Claims: claims,
		EventRecorder: o.EventRecorder, Metrics: metrics.snapshotProtection,
	})
	if err != nil {
		return nil, err
	}
	provisioner, err := newProvisioner(logger, provisionerOptions{
		Config: cfg, Driver: drv, Identity: o.Identity, Features: feats,
		Client: clients.core, ProtectionClient: clients.protection, SnapshotClient: clients.snapshots,
		EventRecorder: o.EventRecorder, Metrics: metrics.provisioner, Calls: calls, DataSources: sources, Topology: topology,
		Factory: factory, Claims: claims, Volumes: volumes, Classes: classes,
		RecycleBin: bin, DriverErrors: driverErrorRecorder(driverErrors), AdaptiveMetrics: metrics.adaptive,
	})
	if err != nil {
		return nil, err
	}
	capacityTracking, err := newCapacityTracking(ctx, capacityOptions{
		Config: cfg, RESTConfig: clients.restConfig, Getenv: o.Getenv, Driver: drv,
		Factory: factory, Local: o.Local, Registry: metrics.registry,
	})
	if err != nil {
		return nil, err
	}
	provisioning := newProvisionController(logger, provisionControllerOptions{
		Config: cfg, Client: clients.core, EventsClient: clients.events, Driver: drv, Provisioner: provisioner, Capacity: capacityTracking,
		Claims: claims, Volumes: volumes, Classes: classes, Metrics: metrics.lib,
	})
	claimProtection, err := newClaimProtection(claimProtectionOptions{
		Config: cfg, Client: clients.protection, Claims: claims, Volumes: volumes, Calls: calls, Provisioner: provisioner,
		ProvisioningProtection: feats.ProvisioningProtection, Local: o.Local, EventRecorder: o.EventRecorder, Metrics: metrics.claimProtection,
	})
	if err != nil {
		return nil, err
	}
	claimConditions, err := newClaimConditions(logger, claimConditionsOptions{
		Config: cfg, Client: clients.protection, Driver: drv, Claims: claims, Classes: classes,
		Calls: calls, DriverErrors: driverErrors, Provisioner: provisioner, Local: o.Local, Registry: metrics.registry,
	})
	if err != nil {
		return nil, err
	}
	orphanAudit, err := newOrphanAudit(logger, orphanAuditOptions{
		Config: cfg, Driver: drv, Volumes: volumes, Claims: claims, Provisioner: provisioner, Metrics: metrics.orphanAudit,
	})
	if err != nil {
		return nil, err
	}
	recycleBin, err := newRecycleBin(logger, recycleBinOptions{
		Config: cfg, Driver: drv, Client: clients.core, Volumes: volumes, Claims: claims, Bin: bin,
		Provisioner: provisioner, EventRecorder: o.EventRecorder, Metrics: metrics.recycleBin,
	})
	if err != nil {
		return nil, err
	}
	volumeProtection := volumeProtectionOptions{Config: cfg, Client: clients.protection, Factory: factory, Driver: drv, EventRecorder: o.EventRecorder}
	pvProtection, err := newPVProtection(logger, volumeProtection, metrics.pvProtection)
	if err != nil {
		return nil, err
	}
	pvcProtection, err := newPVCProtection(logger, volumeProtection, metrics.pvcProtection)
	if err != nil {
		return nil, err
	}
	localVolumeCleanup, err := newLocalVolumeCleanup(ctx, localVolumeCleanupOptions{
		Config: cfg, Client: clients.core, LocalClient: clients.local, Factory: factory,
		EventRecorder: o.EventRecorder, Metrics: metrics.cleanup,
	})
	if err != nil {
		return nil, err
	}

	return &controllers{
		factory:     factory,
		dataSources: sources,
		capacity:    capacityTracking,
		// The sidecar's start order. They are built in another, set by
		// what each reads, which also keeps the start-up logs in order.
		workers: []worker{
			claimProtection,
			claimConditions,
			sources.snapshotProtection,
			pvProtection,
			pvcProtection,
			localVolumeCleanup,
			orphanAudit,
			recycleBin,
			capacityTracking.worker(),
		},
		provisioning: provisioning,
		leading:      leadingGauge(metrics, drv.Name),
	}, nil
}

// run starts the informers and controllers and blocks until ctx is done and
// they have stopped.
func (c *controllers) run(ctx context.Context) {
	logger := klog.FromContext(ctx)
	c.leading.Set(1)
	defer c.leading.Set(0)

	c.factory.Start(ctx.Done())
	c.dataSources.start(ctx)
	c.capacity.start(ctx)
	// Shutdown waits for the informer goroutines, which end with ctx.
	defer c.factory.Shutdown()
	defer c.dataSources.shutdown()
	defer c.capacity.shutdown()
	for typ, synced := range c.factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			logger.Info("Stopped before the informer cache synced", "type", typ.String())
			return
		}
	}
	if !c.dataSources.synced(ctx) {
		return
	}

	var wg sync.WaitGroup
	for _, w := range c.workers {
		if w != nil {
			wg.Go(func() { w(ctx) })
		}
	}
	c.provisioning.Run(ctx)
	wg.Wait()
	logger.Info("Controllers stopped")
}
