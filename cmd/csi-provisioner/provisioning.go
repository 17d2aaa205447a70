package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	snapclient "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
	libmetrics "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller/metrics"

	"github.com/csi-protect/external-provisioner/pkg/adaptive"
	"github.com/csi-protect/external-provisioner/pkg/capacity"
	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/features"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
	"github.com/csi-protect/external-provisioner/pkg/recyclebin"
)

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

// nodeTopology is where the provisioner reads nodes' topology from; both
// listers are nil when it reads none.
type nodeTopology struct {
	nodes    corelisters.NodeLister
	csiNodes storagelisters.CSINodeLister
	// deployment is set with --node-deployment.
	deployment *controller.NodeDeployment
}

// nodeTopologyOptions are what newNodeTopology reads.
type nodeTopologyOptions struct {
	Config *config
	Driver *csiDriver
	// Local is this sidecar's node with --node-deployment, else nil.
	Local *localNode
	// Gate is the Topology feature gate.
	Gate    bool
	Factory informers.SharedInformerFactory
}

// newNodeTopology picks where topology comes from. Nodes and CSINodes are
// read only for topology: in large clusters Nodes are a big share of the
// cache, so without topology nothing watches them (and nothing looks a
// selected node up: see library.Adapter.NodesLister).
func newNodeTopology(logger klog.Logger, o nodeTopologyOptions) nodeTopology {
	switch {
	case o.Local != nil:
		// Topology comes from the local driver alone, as upstream: no
		// sidecar on a node watches every Node.
		logger.Info("Node deployment: provisioning for this node only", "node", o.Local.Name, "nodeID", o.Local.Info.GetNodeId(),
			"topology", o.Local.Info.GetAccessibleTopology().GetSegments())
		t := nodeTopology{deployment: &controller.NodeDeployment{
			NodeName:         o.Local.Name,
			NodeInfo:         o.Local.Info,
			ImmediateBinding: o.Config.nodeDeploymentImmediateBinding,
			BaseDelay:        o.Config.nodeDeploymentBaseDelay,
			MaxDelay:         o.Config.nodeDeploymentMaxDelay,
		}}
		t.nodes, t.csiNodes = controller.LocalTopologyListers(o.Driver.Name, o.Local.Name, o.Local.Info)
		return t
	case o.Gate && o.Driver.SupportsTopology():
		logger.Info("CSI driver supports topology, watching Nodes and CSINodes")
		return nodeTopology{nodes: o.Factory.Core().V1().Nodes().Lister(), csiNodes: o.Factory.Storage().V1().CSINodes().Lister()}
	}
	return nodeTopology{}
}

// provisionerOptions are what newProvisioner reads.
type provisionerOptions struct {
	Config   *config
	Driver   *csiDriver
	Identity string
	Features controller.Features
	// ProtectionClient sends the protection finalizers' writes (see
	// kubeClients.protection).
	Client           kubernetes.Interface
	ProtectionClient kubernetes.Interface
	SnapshotClient   snapclient.Interface
	EventRecorder    record.EventRecorder
	Metrics          *controller.Metrics
	// Calls is written by the provisioner and read by claim protection.
	Calls       *provisionstate.Tracker
	DataSources *dataSources
	Topology    nodeTopology
	// Factory gives VolumeAttachments, only to a driver that attaches.
	Factory informers.SharedInformerFactory
	Claims  coreinformers.PersistentVolumeClaimInformer
	Volumes coreinformers.PersistentVolumeInformer
	Classes storageinformers.StorageClassInformer
	// RecycleBin keeps released volumes (--volume-retention).
	RecycleBin *recyclebin.Bin
	// DriverErrors records the driver's refusals for the claim conditions
	// controller; nil with its gate off.
	DriverErrors controller.DriverErrorRecorder
	// AdaptiveMetrics show the bound of --adaptive-concurrency.
	AdaptiveMetrics *adaptive.Metrics
}

// newProvisioner builds the CSI provisioner and the event handlers it
// needs beyond the library's.
func newProvisioner(logger klog.Logger, o provisionerOptions) (*controller.Provisioner, error) {
	cfg := o.Config
	// Checked with the other flags (validateClaimMetadata).
	labelKeys, err := controller.ParseLabelKeys(cfg.claimLabelsToVolume)
	if err != nil {
		return nil, err
	}
	provisioner, err := controller.New(controller.Options{
		DriverName:                  o.Driver.Name,
		MigratedFrom:                o.Driver.MigratedFrom,
		Identity:                    o.Identity,
		Client:                      o.Client,
		ProtectionClient:            o.ProtectionClient,
		CSIClient:                   driverClient(cfg, o.Driver, o.AdaptiveMetrics),
		EventRecorder:               o.EventRecorder,
		Calls:                       o.Calls,
		DriverErrors:                o.DriverErrors,
		SnapshotClient:              o.SnapshotClient,
		ProtectSnapshotSources:      o.DataSources.protectSnapshots,
		SnapshotReaders:             o.DataSources.readers,
		ReferenceGrants:             o.DataSources.referenceGrants,
		PreventVolumeModeConversion: cfg.preventVolumeModeConversion,
		ClaimLister:                 o.Claims.Lister(),
		VolumeLister:                o.Volumes.Lister(),
		ClassLister:                 o.Classes.Lister(),
		NodeLister:                  o.Topology.nodes,
		CSINodeLister:               o.Topology.csiNodes,
		VolumeAttachmentLister:      attachmentLister(logger, o.Factory, o.Driver.ControllerCapabilities),
		PluginCapabilities:          o.Driver.PluginCapabilities,
		ControllerCapabilities:      o.Driver.ControllerCapabilities,
		Timeout:                     cfg.timeout,
		VolumeNamePrefix:            cfg.volumeNamePrefix,
		VolumeNameUUIDLength:        cfg.volumeNameUUIDLength,
		VolumeNameTemplate:          cfg.volumeNameTemplate,
		VolumeNameMaxLength:         cfg.volumeNameMaxLength,
		ClaimParameterTemplates:     cfg.claimParameterTemplates,
		ClaimLabelsToVolume:         labelKeys,
		ExtraCreateMetadata:         cfg.extraCreateMetadata,
		StrictTopology:              cfg.strictTopology,
		ImmediateTopology:           cfg.immediateTopology,
		DefaultFSType:               cfg.defaultFSType,
		ControllerPublishReadOnly:   cfg.controllerPublishReadOnly,
		Features:                    o.Features,
		Metrics:                     o.Metrics,
		NodeDeployment:              o.Topology.deployment,
		RetryIntervalMax:            cfg.retryIntervalMax,
		RecycleBin:                  o.RecycleBin,
	})
	if err != nil {
		return nil, fmt.Errorf("creating provisioner: %w", err)
	}
	// A claim held back after an infeasible CreateVolume is retried at once
	// when its StorageClass is replaced.
	if _, err := o.Classes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    provisioner.OnClassChange,
		UpdateFunc: func(_, obj any) { provisioner.OnClassChange(obj) },
	}); err != nil {
		return nil, fmt.Errorf("StorageClass handler: %w", err)
	}
	if o.Topology.deployment != nil {
		// A deleted claim's wait to be taken is forgotten.
		if _, err := o.Claims.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: provisioner.OnClaimDelete}); err != nil {
			return nil, fmt.Errorf("node deployment claim handler: %w", err)
		}
	}
	return provisioner, nil
}

// provisionControllerOptions are what newProvisionController reads.
type provisionControllerOptions struct {
	Config *config
	Client kubernetes.Interface
	// EventsClient sends the library's events (kubeClients.events).
	EventsClient kubernetes.Interface
	Driver       *csiDriver
	Provisioner  *controller.Provisioner
	// Capacity, nil unless it runs, is refreshed after each provisioning.
	Capacity *capacityTracking
	Claims   coreinformers.PersistentVolumeClaimInformer
	Volumes  coreinformers.PersistentVolumeInformer
	Classes  storageinformers.StorageClassInformer
	Metrics  libmetrics.Metrics
}

// newProvisionController builds the provisioning library's controller,
// which calls the provisioner for claims and released PVs.
func newProvisionController(logger klog.Logger, o provisionControllerOptions) *libcontroller.ProvisionController {
	cfg := o.Config
	var libProvisioner capacity.Provisioner = o.Provisioner
	if o.Capacity != nil {
		libProvisioner = capacity.WithRefresh(o.Provisioner, o.Capacity.controller)
	}
	if err := provisioningUnsupported(o.Driver.DriverInfo); err != nil {
		logger.Info("Warning: every claim and every volume deletion will fail, as upstream's do", "reason", err.Error())
		libProvisioner = unsupportedProvisioner{Provisioner: libProvisioner, err: err}
	}

	// The library meets the project through one adapter (its client,
	// informers and node lister): see pkg/controller/library.
	adapter := o.Provisioner.Library()
	return libcontroller.NewProvisionController(logger, adapter.Client(o.Client, o.EventsClient), o.Driver.Name, libProvisioner,
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
		libcontroller.ClaimsInformer(adapter.ClaimsInformer(o.Claims.Informer())),
		libcontroller.VolumesInformer(adapter.VolumesInformer(o.Volumes.Informer())),
		libcontroller.ClassesInformer(o.Classes.Informer()),
		// The selected node's lookup is the provisioner's, as upstream's.
		libcontroller.NodesLister(adapter.NodesLister()),
		libcontroller.AddFinalizer(cfg.gates.Enabled(features.HonorPVReclaimPolicy)),
		libcontroller.MetricsInstance(o.Metrics),
		// The in-tree plugin's classes, claims and PVs are this driver's too.
		libcontroller.AdditionalProvisionerNames(additionalProvisionerNames(o.Driver.MigratedFrom)),
	)
}

// driverClient is the provisioner's CSI controller client: with
// --adaptive-concurrency its CreateVolume and DeleteVolume calls in flight
// are bounded by what the backend takes, at most --worker-threads.
func driverClient(cfg *config, drv *csiDriver, m *adaptive.Metrics) csi.ControllerClient {
	client := csi.NewControllerClient(drv.Conn)
	if !cfg.adaptiveConcurrency {
		return client
	}
	var observe func(adaptive.State)
	if m != nil {
		observe = m.Observe
	}
	return adaptive.Client{ControllerClient: client, Limiter: adaptive.NewLimiter(adaptive.Options{Max: int(cfg.provisioningThreads), Observe: observe})}
}
