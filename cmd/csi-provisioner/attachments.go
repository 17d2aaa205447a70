package main

import (
	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"
	"k8s.io/client-go/informers"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/klog/v2"
)

// attachmentLister returns the VolumeAttachment lister that keeps DeleteVolume
// from running while a VolumeAttachment names the PV, or nil for a driver
// without PUBLISH_UNPUBLISH_VOLUME, as upstream does: its volumes are never
// attached by ControllerPublishVolume, and upstream's RBAC grants the
// VolumeAttachment rule to such drivers' sidecars only. Asking for the
// lister is what makes the factory start the informer, so without the
// capability nothing lists or watches VolumeAttachments (a cache that could
// never sync would stop every controller).
func attachmentLister(logger klog.Logger, factory informers.SharedInformerFactory, caps rpc.ControllerCapabilitySet) storagelisters.VolumeAttachmentLister {
	if !caps[csi.ControllerServiceCapability_RPC_PUBLISH_UNPUBLISH_VOLUME] {
		logger.Info("CSI driver does not support PUBLISH_UNPUBLISH_VOLUME, not watching VolumeAttachments")
		return nil
	}
	logger.Info("CSI driver supports PUBLISH_UNPUBLISH_VOLUME, watching VolumeAttachments")
	return factory.Storage().V1().VolumeAttachments().Lister()
}
