package controller

import (
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/record"
)

// Features are the feature gates the provisioner acts on, read once at start-up.
type Features struct {
	// Topology lets the provisioner send accessibility requirements to a driver
	// that has the VOLUME_ACCESSIBILITY_CONSTRAINTS plugin capability.
	Topology bool
	// ProvisioningProtection puts a finalizer on a claim before CreateVolume
	// so that a claim deleted meanwhile never leaks its volume.
	ProvisioningProtection bool
}

// Options configure a CSI provisioner. Every dependency is injected so tests
// can replace it.
type Options struct {
	// DriverName is the CSI driver name from GetPluginInfo; it is also the
	// provisioner name matched against StorageClass.provisioner.
	DriverName string
	// Identity is the unique identity of this provisioner instance, written
	// into the provisioner-identity annotation of PVs it creates.
	Identity string

	Client    kubernetes.Interface
	CSIClient csi.ControllerClient
	// EventRecorder posts events beyond the lib's own.
	EventRecorder record.EventRecorder
	// Calls records CreateVolume calls for the claim protection controller.
	Calls CallTracker

	ClaimLister            corelisters.PersistentVolumeClaimLister
	VolumeLister           corelisters.PersistentVolumeLister
	ClassLister            storagelisters.StorageClassLister
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
	ExtraCreateMetadata  bool
	StrictTopology       bool
	ImmediateTopology    bool
	DefaultFSType        string
	// ControllerPublishReadOnly marks PVs of ReadOnlyMany claims read-only.
	ControllerPublishReadOnly bool

	Features Features
	// Metrics of provisioning protection; nil gives unregistered ones.
	Metrics *Metrics
}
