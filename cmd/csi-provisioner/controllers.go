package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	snapclient "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	"google.golang.org/grpc"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
	libmetrics "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller/metrics"

	"github.com/csi-protect/external-provisioner/pkg/capacity"
	"github.com/csi-protect/external-provisioner/pkg/claimprotection"
	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/csiconn"
	"github.com/csi-protect/external-provisioner/pkg/features"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/cleanup"
	"github.com/csi-protect/external-provisioner/pkg/orphanaudit"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
	"github.com/csi-protect/external-provisioner/pkg/pvcprotection"
	"github.com/csi-protect/external-provisioner/pkg/pvprotection"
	"github.com/csi-protect/external-provisioner/pkg/snapshotprotection"
)

// controllersOptions is what the controllers are built from.
type controllersOptions struct {
	Config *config
	Client kubernetes.Interface
	// ProtectionClient sends the requests of protection: every protection
	// finalizer (claims, PVs) and PVC protection's pod reads.
	ProtectionClient kubernetes.Interface
	LocalClient      versioned.Interface
	// SnapshotClient and GatewayClient read restore sources and
	// ReferenceGrants.
	SnapshotClient snapclient.Interface
	DynamicClient  dynamic.Interface
	Conn           *grpc.ClientConn
	Driver         *csiconn.DriverInfo
	Identity       string
	EventRecorder  record.EventRecorder
	Metrics        libmetrics.Metrics
	// The controllers' metrics, registered by the caller.
	ProvisionerMetrics        *controller.Metrics
	ClaimProtectionMetrics    *claimprotection.Metrics
	SnapshotProtectionMetrics *snapshotprotection.Metrics
	PVProtectionMetrics       *pvprotection.Metrics
	PVCProtectionMetrics      *pvcprotection.Metrics
	CleanupMetrics            *cleanup.Metrics
	// RESTConfig and Getenv build capacity tracking's own client and find
	// its namespace and owner; Registry receives its metrics.
	RESTConfig *rest.Config
	Getenv     func(string) string
	Registry   k8smetrics.KubeRegistry
	// Local is this sidecar's node with --node-deployment, else nil.
	Local *localNode
	// MigratedFrom is the in-tree plugin the driver replaces, "" for none.
	MigratedFrom string
	// OrphanAuditMetrics are the orphan audit's, served even while it is off.
	OrphanAuditMetrics *orphanaudit.Metrics
}

// controllers are the provisioning and claim protection controllers and
// the informers they share. They run only while this instance leads.
type controllers struct {
	factory                informers.SharedInformerFactory
	provisioning           *libcontroller.ProvisionController
	claimProtection        *claimprotection.Controller
	claimProtectionThreads int
	// dataSources holds the snapshot protection controller and the
	// snapshot and ReferenceGrant informers, when they run.
	dataSources *dataSources

	// pvProtection and pvcProtection are nil unless their gate is on.
	pvProtection            *pvprotection.Controller
	pvcProtection           *pvcprotection.Controller
	volumeProtectionThreads int
	// localVolumeCleanup is nil unless LocalVolumeCleanup is on, or off
	// with LocalVolumes to free of a finalizer this sidecar added.
	localVolumeCleanup        *cleanup.Controller
	localVolumeCleanupThreads int
	// capacity is nil unless --enable-capacity and the driver reports
	// capacity.
	capacity *capacityTracking
	// orphanAudit is nil unless --orphan-audit-interval is set and the
	// driver reports LIST_VOLUMES.
	orphanAudit *orphanaudit.Controller
}

// featuresFrom reads the provisioner's gates once; it never sees the gate.
func featuresFrom(gate featuregate.FeatureGate) controller.Features {
	return controller.Features{
		Topology:                       gate.Enabled(features.Topology),
		ProvisioningProtection:         gate.Enabled(features.ProvisioningProtection),
		CrossNamespaceVolumeDataSource: gate.Enabled(features.CrossNamespaceVolumeDataSource),
		VolumeAttributesClass:          gate.Enabled(features.VolumeAttributesClass),
	}
}

func additionalProvisionerNames(migratedFrom string) []string {
	if migratedFrom == "" {
		return nil
	}
	return []string{migratedFrom}
}

// newIdentity names this instance uniquely, in upstream's format, for the
// provisioner-identity annotation; the leader election Lease is held as the
// host name instead, as upstream's is.
func newIdentity(driverName string) string {
	return strconv.FormatInt(time.Now().UnixMilli(), 10) + "-" + strconv.Itoa(rand.IntN(10000)) + "-" + driverName
}

// newControllers builds every controller. Informers are only created here;
// they start in run, once leadership is won.
func newControllers(ctx context.Context, o controllersOptions) (*controllers, error) {
	logger := klog.FromContext(ctx)
	cfg := o.Config
	feats := featuresFrom(cfg.gates)

	factory := newInformerFactory(o.Client)
	claims := factory.Core().V1().PersistentVolumeClaims()
	volumes := factory.Core().V1().PersistentVolumes()
	classes := factory.Storage().V1().StorageClasses()

	// Nodes and CSINodes are read only for topology: in large clusters Nodes
	// are a big share of the cache, so without topology nothing watches
	// them (and the library looks a selected node up with a GET).
	var nodes corelisters.NodeLister
	var csiNodes storagelisters.CSINodeLister
	var nodeDeployment *controller.NodeDeployment
	switch {
	case o.Local != nil:
		// Topology comes from the local driver alone, as upstream: no
		// sidecar on a node watches every Node.
		logger.Info("Node deployment: provisioning for this node only", "node", o.Local.Name, "nodeID", o.Local.Info.GetNodeId(),
			"topology", o.Local.Info.GetAccessibleTopology().GetSegments())
		nodeDeployment = &controller.NodeDeployment{
			NodeName:         o.Local.Name,
			NodeInfo:         o.Local.Info,
			ImmediateBinding: cfg.nodeDeploymentImmediateBinding,
			BaseDelay:        cfg.nodeDeploymentBaseDelay,
			MaxDelay:         cfg.nodeDeploymentMaxDelay,
		}
		nodes, csiNodes = controller.LocalTopologyListers(o.Driver.Name, o.Local.Name, o.Local.Info)
	case feats.Topology && o.Driver.SupportsTopology():
		logger.Info("CSI driver supports topology, watching Nodes and CSINodes")
		nodes = factory.Core().V1().Nodes().Lister()
		csiNodes = factory.Storage().V1().CSINodes().Lister()
	}
	// One tracker of CreateVolume calls, which the provisioner writes and
	// the claim protection controller reads.
	calls := provisionstate.NewTracker()
	sources, err := newDataSources(ctx, dataSourcesOptions{
		Config:            cfg,
		Client:            o.Client,
		SnapshotClient:    o.SnapshotClient,
		DynamicClient:     o.DynamicClient,
		RestoresSupported: restoresSupported(o.Driver.ControllerCapabilities),
		Claims:            claims,
		Controllers:       o,
	})
	if err != nil {
		return nil, err
	}

	provisioner, err := controller.New(controller.Options{
		DriverName:                  o.Driver.Name,
		MigratedFrom:                o.MigratedFrom,
		Identity:                    o.Identity,
		Client:                      o.Client,
		ProtectionClient:            o.ProtectionClient,
		CSIClient:                   csi.NewControllerClient(o.Conn),
		EventRecorder:               o.EventRecorder,
		Calls:                       calls,
		SnapshotClient:              o.SnapshotClient,
		ProtectSnapshotSources:      sources.protectSnapshots,
		SnapshotReaders:             sources.readers,
		ReferenceGrants:             sources.referenceGrants,
		PreventVolumeModeConversion: cfg.preventVolumeModeConversion,
		ClaimLister:                 claims.Lister(),
		VolumeLister:                volumes.Lister(),
		ClassLister:                 classes.Lister(),
		NodeLister:                  nodes,
		CSINodeLister:               csiNodes,
		VolumeAttachmentLister:      attachmentLister(logger, factory, o.Driver.ControllerCapabilities),
		PluginCapabilities:          o.Driver.PluginCapabilities,
		ControllerCapabilities:      o.Driver.ControllerCapabilities,
		Timeout:                     cfg.timeout,
		VolumeNamePrefix:            cfg.volumeNamePrefix,
		VolumeNameUUIDLength:        cfg.volumeNameUUIDLength,
		ExtraCreateMetadata:         cfg.extraCreateMetadata,
		StrictTopology:              cfg.strictTopology,
		ImmediateTopology:           cfg.immediateTopology,
		DefaultFSType:               cfg.defaultFSType,
		ControllerPublishReadOnly:   cfg.controllerPublishReadOnly,
		Features:                    feats,
		Metrics:                     o.ProvisionerMetrics,
		NodeDeployment:              nodeDeployment,
		RetryIntervalMax:            cfg.retryIntervalMax,
	})
	if err != nil {
		return nil, fmt.Errorf("creating provisioner: %w", err)
	}
	// A claim held back after an infeasible CreateVolume is retried at once
	// when its StorageClass is replaced.
	if _, err := classes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    provisioner.OnClassChange,
		UpdateFunc: func(_, obj any) { provisioner.OnClassChange(obj) },
	}); err != nil {
		return nil, fmt.Errorf("StorageClass handler: %w", err)
	}
	if nodeDeployment != nil {
		// A deleted claim's wait to be taken is forgotten.
		if _, err := claims.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: provisioner.OnClaimDelete}); err != nil {
			return nil, fmt.Errorf("node deployment claim handler: %w", err)
		}
	}

	var capacityTracking *capacityTracking
	var libProvisioner capacity.Provisioner = provisioner
	if cfg.enableCapacity {
		capacityTracking, err = newCapacityTracking(ctx, capacityOptions{
			Config: cfg, RESTConfig: o.RESTConfig, Getenv: o.Getenv, Driver: o.Driver, Conn: o.Conn,
			Factory: factory, Local: o.Local, Registry: o.Registry,
		})
		if err != nil {
			return nil, err
		}
		if capacityTracking != nil {
			libProvisioner = capacity.WithRefresh(provisioner, capacityTracking.controller)
		}
	}

	if err := provisioningUnsupported(o.Driver); err != nil {
		logger.Info("Warning: every claim and every volume deletion will fail, as upstream's do", "reason", err.Error())
		libProvisioner = unsupportedProvisioner{Provisioner: libProvisioner, err: err}
	}

	// The library's PV writes are observed, so that a stale copy of a PV
	// it finished deleting costs no API request (Provisioner.ShouldDelete).
	provisioning := libcontroller.NewProvisionController(logger, provisioner.LibraryClient(o.Client), o.Driver.Name, libProvisioner,
		// Leader election is done around the whole process, not in the library.
		libcontroller.LeaderElection(false),
		// Retry failed operations forever, backing off as upstream does.
		libcontroller.FailedProvisionThreshold(0),
		libcontroller.FailedDeleteThreshold(0),
		libcontroller.RateLimiter(workqueue.NewTypedItemExponentialFailureRateLimiter[any](cfg.retryIntervalStart, cfg.retryIntervalMax)),
		libcontroller.Threadiness(int(cfg.provisioningThreads)),
		// Save created PVs in the background, retrying until they are stored,
		// so a created volume is never orphaned by a failing API server.
		libcontroller.CreateProvisionedPVLimiter(workqueue.DefaultTypedControllerRateLimiter[any]()),
		// Through it a claim held back after an infeasible CreateVolume
		// is handed back to the library when the hold ends.
		libcontroller.ClaimsInformer(provisioner.LibraryClaimsInformer(claims.Informer())),
		libcontroller.VolumesInformer(volumes.Informer()),
		libcontroller.ClassesInformer(classes.Informer()),
		libcontroller.NodesLister(nodes),
		libcontroller.AddFinalizer(cfg.gates.Enabled(features.HonorPVReclaimPolicy)),
		libcontroller.MetricsInstance(o.Metrics),
		// The in-tree plugin's classes, claims and PVs are this driver's too.
		libcontroller.AdditionalProvisionerNames(additionalProvisionerNames(o.MigratedFrom)),
	)

	claimProtection, err := claimprotection.New(claimprotection.Options{
		Client:                 o.ProtectionClient,
		ClaimInformer:          claims,
		VolumeInformer:         volumes,
		Calls:                  calls,
		Replayer:               provisioner,
		ProvisioningProtection: feats.ProvisioningProtection,
		NodeName:               o.Local.name(),
		EventRecorder:          o.EventRecorder,
		Metrics:                o.ClaimProtectionMetrics,
		// Same back-off as provisioning, as upstream shares one limiter.
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](cfg.retryIntervalStart, cfg.retryIntervalMax),
	})
	if err != nil {
		return nil, fmt.Errorf("creating claim protection controller: %w", err)
	}

	orphanAudit, err := newOrphanAudit(logger, o, factory, provisioner)
	if err != nil {
		return nil, fmt.Errorf("creating orphan audit: %w", err)
	}

	ctrls := &controllers{
		orphanAudit:               orphanAudit,
		factory:                   factory,
		provisioning:              provisioning,
		claimProtection:           claimProtection,
		claimProtectionThreads:    int(cfg.claimProtectionThreads),
		dataSources:               sources,
		volumeProtectionThreads:   int(cfg.volumeProtectionThreads),
		localVolumeCleanupThreads: int(cfg.localVolumeCleanupThreads),
		capacity:                  capacityTracking,
	}
	if err := ctrls.addVolumeProtection(logger, o, factory); err != nil {
		return nil, err
	}
	if err := ctrls.addLocalVolumeCleanup(ctx, o, factory); err != nil {
		return nil, err
	}
	return ctrls, nil
}

// addVolumeProtection builds the PV and PVC protection controllers whose
// gates are on. Pods are watched only for PVC protection.
func (c *controllers) addVolumeProtection(logger klog.Logger, o controllersOptions, factory informers.SharedInformerFactory) error {
	cfg := o.Config
	allObjects := cfg.protectionScope == protectionScopeAll
	if cfg.gates.Enabled(features.PVProtection) {
		logger.Info("PV protection is on", "scope", cfg.protectionScope)
		ctrl, err := pvprotection.New(pvprotection.Options{
			Client:         o.ProtectionClient,
			VolumeInformer: factory.Core().V1().PersistentVolumes(),
			DriverName:     o.Driver.Name,
			InTreePlugin:   o.MigratedFrom,
			AllVolumes:     allObjects,
			EventRecorder:  o.EventRecorder,
			Metrics:        o.PVProtectionMetrics,
			RateLimiter:    workqueue.NewTypedItemExponentialFailureRateLimiter[string](cfg.retryIntervalStart, cfg.retryIntervalMax),
		})
		if err != nil {
			return fmt.Errorf("creating PV protection controller: %w", err)
		}
		c.pvProtection = ctrl
	}
	if cfg.gates.Enabled(features.PVCProtection) {
		logger.Info("PVC protection is on", "scope", cfg.protectionScope)
		ctrl, err := pvcprotection.New(pvcprotection.Options{
			Client:        o.ProtectionClient,
			ClaimInformer: factory.Core().V1().PersistentVolumeClaims(),
			PodInformer:   factory.Core().V1().Pods(),
			ClassLister:   factory.Storage().V1().StorageClasses().Lister(),
			DriverName:    o.Driver.Name,
			InTreePlugin:  o.MigratedFrom,
			AllClaims:     allObjects,
			EventRecorder: o.EventRecorder,
			Metrics:       o.PVCProtectionMetrics,
			RateLimiter:   workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](cfg.retryIntervalStart, cfg.retryIntervalMax),
		})
		if err != nil {
			return fmt.Errorf("creating PVC protection controller: %w", err)
		}
		c.pvcProtection = ctrl
	}
	return nil
}

// run starts the informers and controllers and blocks until ctx is done and
// they have stopped.
func (c *controllers) run(ctx context.Context) {
	logger := klog.FromContext(ctx)

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
	wg.Go(func() { c.claimProtection.Run(ctx, c.claimProtectionThreads) })
	if ctrl := c.dataSources.snapshotProtection; ctrl != nil {
		wg.Go(func() { ctrl.Run(ctx, c.claimProtectionThreads) })
	}
	if c.pvProtection != nil {
		wg.Go(func() { c.pvProtection.Run(ctx, c.volumeProtectionThreads) })
	}
	if c.pvcProtection != nil {
		wg.Go(func() { c.pvcProtection.Run(ctx, c.volumeProtectionThreads) })
	}
	if c.localVolumeCleanup != nil {
		wg.Go(func() { c.localVolumeCleanup.Run(ctx, c.localVolumeCleanupThreads) })
	}
	if c.orphanAudit != nil {
		wg.Go(func() { c.orphanAudit.Run(ctx) })
	}
	if c.capacity != nil {
		// Run waits for its own caches.
		wg.Go(func() { c.capacity.controller.Run(ctx, c.capacity.threads) })
	}
	c.provisioning.Run(ctx)
	wg.Wait()
	logger.Info("Controllers stopped")
}
