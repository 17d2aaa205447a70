package controller

import (
	"context"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"
	snapclient "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// Features are the feature gates the provisioner acts on, read once at start-up.
type Features struct {
	// Topology lets the provisioner send accessibility requirements to a driver
	// that has the VOLUME_ACCESSIBILITY_CONSTRAINTS plugin capability.
	Topology bool
	// ProvisioningProtection puts a finalizer on a claim before CreateVolume
	// so that a claim deleted meanwhile never leaks its volume.
	ProvisioningProtection bool
	// CrossNamespaceVolumeDataSource lets a claim's dataSourceRef name a
	// source in another namespace that a ReferenceGrant there allows.
	CrossNamespaceVolumeDataSource bool
	// VolumeAttributesClass provisions a claim naming a
	// VolumeAttributesClass with the class's parameters as CreateVolume's
	// mutable parameters, for drivers with MODIFY_VOLUME.
	VolumeAttributesClass bool
}

// Options configure a CSI provisioner. Every dependency is injected so tests
// can replace it.
type Options struct {
	// DriverName is the CSI driver name from GetPluginInfo; it is also the
	// provisioner name matched against StorageClass.provisioner.
	DriverName string
	// MigratedFrom is the in-tree plugin the driver replaces (CSI
	// migration, see InTreePluginOf), "" for none: its StorageClasses are
	// provisioned and its PVs deleted through the driver, translated.
	MigratedFrom string
	// Identity is the unique identity of this provisioner instance, written
	// into the provisioner-identity annotation of PVs it creates.
	Identity string

	Client kubernetes.Interface
	// ProtectionClient writes the protection finalizers and the records
	// that go with them on claims, on a rate limit of its own; nil means
	// Client.
	ProtectionClient kubernetes.Interface
	CSIClient        csi.ControllerClient
	// SnapshotClient reads the VolumeSnapshots claims are restored from and
	// writes their source-protection finalizer; nil refuses restores.
	SnapshotClient snapclient.Interface
	// ProtectSnapshotSources puts the source-protection finalizer on a
	// snapshot before restoring from it. Off when nothing could remove it
	// again (no snapshot protection controller runs): restores then go on
	// unprotected, with an event.
	ProtectSnapshotSources bool
	// SnapshotReaders records the restores running, for the snapshot
	// protection controller; needed with SnapshotClient.
	SnapshotReaders SourceReaders
	// ReferenceGrants is read for cross-namespace data sources only;
	// nil refuses them (the gate is off, or ReferenceGrants are not served).
	ReferenceGrants ReferenceGrants
	// EventRecorder posts events beyond the lib's own.
	EventRecorder record.EventRecorder
	// Calls records CreateVolume calls for the claim protection controller.
	Calls CallTracker
	// DriverErrors, if set, records how the driver last refused each
	// claim's CreateVolume, for the claim conditions controller (gate
	// ClaimConditions); nil records nothing.
	DriverErrors DriverErrorRecorder

	ClaimLister  corelisters.PersistentVolumeClaimLister
	VolumeLister corelisters.PersistentVolumeLister
	ClassLister  storagelisters.StorageClassLister
	// VolumeAttachmentLister, if set, holds DeleteVolume back while a
	// VolumeAttachment names the PV; nil (a driver without
	// PUBLISH_UNPUBLISH_VOLUME, as upstream) checks nothing.
	VolumeAttachmentLister storagelisters.VolumeAttachmentLister
	// NodeLister and CSINodeLister are read for topology only: needed when
	// Features.Topology is on and the driver reports topology, nil
	// otherwise (Nodes are a big share of a large cluster's cache).
	NodeLister    corelisters.NodeLister
	CSINodeLister storagelisters.CSINodeLister

	PluginCapabilities     rpc.PluginCapabilitySet
	ControllerCapabilities rpc.ControllerCapabilitySet

	// Timeout bounds each CSI call (--timeout).
	Timeout              time.Duration
	VolumeNamePrefix     string
	VolumeNameUUIDLength int
	// VolumeNameTemplate, if set, names volumes for the driver
	// (--volume-name-template) up to VolumeNameMaxLength characters; the
	// PV keeps its name. See pkg/volumename.
	VolumeNameTemplate  string
	VolumeNameMaxLength int
	// ClaimParameterTemplates renders the claim tokens of driver
	// parameters (--claim-parameter-templates).
	ClaimParameterTemplates bool
	// ClaimLabelsToVolume copies the claim labels it selects to a new PV
	// (--claim-labels-to-volume).
	ClaimLabelsToVolume LabelKeys
	ExtraCreateMetadata bool
	StrictTopology      bool
	ImmediateTopology   bool
	DefaultFSType       string
	// ControllerPublishReadOnly marks PVs of ReadOnlyMany claims read-only.
	ControllerPublishReadOnly bool
	// PreventVolumeModeConversion refuses to restore a snapshot of a block
	// volume into a filesystem claim, or the reverse, unless the snapshot
	// content allows it (--prevent-volume-mode-conversion).
	PreventVolumeModeConversion bool

	Features Features
	// NodeDeployment turns on distributed provisioning (--node-deployment):
	// one sidecar per node. Nil is the central deployment. With it, nil
	// NodeLister and CSINodeLister default to LocalTopologyListers.
	NodeDeployment *NodeDeployment
	// Metrics of provisioning protection; nil gives unregistered ones.
	Metrics *Metrics

	// RetryIntervalMax (--retry-interval-max) is how long a claim whose
	// CreateVolume the driver refused as infeasible (InvalidArgument) is
	// left alone, as upstream; 0 means upstream's default, 5 minutes.
	RetryIntervalMax time.Duration
	// Clock times that hold; nil is the real clock.
	Clock clock.WithDelayedExecution
	// RecycleBin, if set, keeps released volumes: a PV it holds is not
	// deleted (--volume-retention).
	RecycleBin DeletionHold
}

// DeletionHold tells whether a released PV's volume must be kept for now.
type DeletionHold interface {
	Holds(ctx context.Context, pv *v1.PersistentVolume) bool
}

// defaultRetryIntervalMax is upstream's default --retry-interval-max.
const defaultRetryIntervalMax = 5 * time.Minute

// ReferenceGrants reads the cached ReferenceGrants of a namespace.
type ReferenceGrants interface {
	List(namespace string) ([]*gatewayv1beta1.ReferenceGrant, error)
}
