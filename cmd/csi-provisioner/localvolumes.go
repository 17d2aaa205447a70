package main

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/features"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/cleanup"
)

// addLocalVolumeCleanup builds the LocalVolume/LocalVolumeSet deletion
// clean-up controller. With LocalVolumeCleanup on it runs fully. With the
// gate off it runs only to remove finalizers it added while the gate was
// on, and only where that can work: the kinds are served and this sidecar
// may list them. Otherwise a cluster without the CRDs, or a sidecar without
// the extra RBAC, would log refused requests forever.
func (c *controllers) addLocalVolumeCleanup(ctx context.Context, o controllersOptions, factory informers.SharedInformerFactory) error {
	logger := klog.FromContext(ctx)
	cfg := o.Config
	enabled := cfg.gates.Enabled(features.LocalVolumeCleanup)
	if !enabled {
		usable, why := localVolumesUsable(ctx, o.Client)
		if !usable {
			logger.V(2).Info("Not looking for LocalVolume finalizers to remove", "reason", why)
			return nil
		}
		logger.Info("LocalVolumeCleanup is off: removing the finalizers this sidecar added to LocalVolumes and LocalVolumeSets")
	} else {
		logger.Info("LocalVolume and LocalVolumeSet deletion clean-up is on")
	}
	opts := cleanup.Options{
		Client:        o.Client,
		LocalClient:   o.LocalClient,
		Enabled:       enabled,
		EventRecorder: o.EventRecorder,
		Metrics:       o.CleanupMetrics,
		RateLimiter:   workqueue.NewTypedItemExponentialFailureRateLimiter[cleanup.OwnerKey](cfg.retryIntervalStart, cfg.retryIntervalMax),
	}
	if enabled {
		opts.VolumeInformer = factory.Core().V1().PersistentVolumes()
		opts.NodeInformer = factory.Core().V1().Nodes()
	}
	ctrl, err := cleanup.New(opts)
	if err != nil {
		return fmt.Errorf("creating local volume clean-up controller: %w", err)
	}
	c.localVolumeCleanup = ctrl
	return nil
}

// localVolumesUsable tells whether LocalVolumes are served and this sidecar
// may list them, and if not, why.
func localVolumesUsable(ctx context.Context, client kubernetes.Interface) (bool, string) {
	gv := cleanup.LocalVolumeResource.GroupVersion().String()
	if _, err := client.Discovery().ServerResourcesForGroupVersion(gv); err != nil {
		if apierrors.IsNotFound(err) {
			return false, gv + " is not served"
		}
		return false, fmt.Sprintf("discovery of %s: %v", gv, err)
	}
	for _, res := range []string{cleanup.LocalVolumeResource.Resource, cleanup.LocalVolumeSetResource.Resource} {
		ok, err := allowed(ctx, client, cleanup.LocalVolumeResource.Group, res, "list")
		if err != nil {
			return false, fmt.Sprintf("access review for %s: %v", res, err)
		}
		if !ok {
			return false, "not allowed to list " + res
		}
	}
	return true, ""
}
