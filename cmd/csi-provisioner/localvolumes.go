package main

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/features"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/cleanup"
)

// localVolumeCleanupOptions are what newLocalVolumeCleanup reads.
type localVolumeCleanupOptions struct {
	Config      *config
	Client      kubernetes.Interface
	LocalClient versioned.Interface
	// Factory gives the PVs and Nodes it watches, only with the gate on.
	Factory       informers.SharedInformerFactory
	EventRecorder record.EventRecorder
	Metrics       *cleanup.Metrics
}

// newLocalVolumeCleanup builds the LocalVolume/LocalVolumeSet deletion
// clean-up controller. With LocalVolumeCleanup on it runs fully. With the
// gate off it runs only to remove finalizers it added while the gate was
// on, and only where that can work: the kinds are served and this sidecar
// may list them. Otherwise a cluster without the CRDs, or a sidecar without
// the extra RBAC, would log refused requests forever; it is then nil.
func newLocalVolumeCleanup(ctx context.Context, o localVolumeCleanupOptions) (worker, error) {
	logger := klog.FromContext(ctx)
	cfg := o.Config
	enabled := cfg.gates.Enabled(features.LocalVolumeCleanup)
	if !enabled {
		usable, why := localVolumesUsable(ctx, o.Client)
		if !usable {
			logger.V(2).Info("Not looking for LocalVolume finalizers to remove", "reason", why)
			return nil, nil
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
		Metrics:       o.Metrics,
		RateLimiter:   workqueue.NewTypedItemExponentialFailureRateLimiter[cleanup.OwnerKey](cfg.retryIntervalStart, cfg.retryIntervalMax),
	}
	if enabled {
		opts.VolumeInformer = o.Factory.Core().V1().PersistentVolumes()
		opts.NodeInformer = o.Factory.Core().V1().Nodes()
	}
	ctrl, err := cleanup.New(opts)
	if err != nil {
		return nil, fmt.Errorf("creating local volume clean-up controller: %w", err)
	}
	threads := int(cfg.localVolumeCleanupThreads)
	return func(ctx context.Context) { ctrl.Run(ctx, threads) }, nil
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
