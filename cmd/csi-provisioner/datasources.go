package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/container-storage-interface/spec/lib/go/csi"
	snapclient "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned"
	snapinformers "github.com/kubernetes-csi/external-snapshotter/client/v8/informers/externalversions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/features"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
	"github.com/csi-protect/external-provisioner/pkg/snapshotprotection"
)

// volumeSnapshotResource is what snapshot source protection watches.
var volumeSnapshotResource = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshots"}

// dataSources is what restores from snapshots and cross-namespace data
// sources need beyond the core informers. Its factories are nil when their
// feature cannot or need not run.
type dataSources struct {
	// readers is shared by the provisioner (writer) and the snapshot
	// protection controller (reader).
	readers *provisionstate.Readers
	// protectSnapshots: the controller that removes source-protection
	// finalizers runs, so the provisioner may add them.
	protectSnapshots bool
	snapshotFactory  snapinformers.SharedInformerFactory
	// snapshotProtection runs that controller; nil when it does not run.
	snapshotProtection worker

	// grantInformer caches ReferenceGrants typed (see typedReferenceGrant).
	grantInformer   cache.SharedIndexInformer
	grants          sync.WaitGroup
	referenceGrants controller.ReferenceGrants
}

// dataSourcesOptions are what newDataSources reads.
type dataSourcesOptions struct {
	Config *config
	// Client asks what the API server serves and what RBAC allows.
	Client         kubernetes.Interface
	SnapshotClient snapclient.Interface
	// DynamicClient watches ReferenceGrants: gateway-api's generated
	// clientset would vendor every Gateway API kind for this one.
	DynamicClient dynamic.Interface
	// RestoresSupported: the driver reports CREATE_DELETE_SNAPSHOT.
	RestoresSupported bool
	Claims            coreinformers.PersistentVolumeClaimInformer
	EventRecorder     record.EventRecorder
	// Metrics are snapshot protection's.
	Metrics *snapshotprotection.Metrics
}

// newDataSources builds the snapshot protection controller when restores
// can happen and the sidecar may watch and update VolumeSnapshots (upstream
// v6.3's RBAC; v5's grants neither, and restores then go on unprotected),
// and the ReferenceGrant informer when CrossNamespaceVolumeDataSource is on.
func newDataSources(ctx context.Context, o dataSourcesOptions) (*dataSources, error) {
	logger := klog.FromContext(ctx)
	d := &dataSources{readers: provisionstate.NewReaders()}
	cfg := o.Config

	if o.RestoresSupported {
		missing, err := snapshotProtectionBlockers(ctx, o.Client)
		switch {
		case err != nil:
			return nil, err
		case missing != "":
			logger.Info("Restores from VolumeSnapshots will not protect their source from deletion", "reason", missing)
		default:
			d.protectSnapshots = true
			d.snapshotFactory = snapinformers.NewSharedInformerFactoryWithOptions(o.SnapshotClient, resyncPeriod,
				snapinformers.WithTransform(dropManagedFields))
			ctrl, err := snapshotprotection.New(snapshotprotection.Options{
				Client:           o.SnapshotClient,
				SnapshotInformer: d.snapshotFactory.Snapshot().V1().VolumeSnapshots(),
				ClaimInformer:    o.Claims,
				Readers:          d.readers,
				SweepInterval:    cfg.snapshotOrphanSweepInterval,
				EventRecorder:    o.EventRecorder,
				Metrics:          o.Metrics,
				RateLimiter:      workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](cfg.retryIntervalStart, cfg.retryIntervalMax),
			})
			if err != nil {
				return nil, fmt.Errorf("creating snapshot protection controller: %w", err)
			}
			// As many threads as the cloning-protection finalizers get
			// (--cloning-protection-threads).
			threads := int(cfg.claimProtectionThreads)
			d.snapshotProtection = func(ctx context.Context) { ctrl.Run(ctx, threads) }
			logger.Info("Snapshot source protection is on", "sweepInterval", cfg.snapshotOrphanSweepInterval)
		}
	}

	if cfg.gates.Enabled(features.CrossNamespaceVolumeDataSource) {
		// Without the CRD an informer would never sync and provisioning
		// would never start: refuse cross-namespace sources instead.
		served, err := discovery.IsResourceEnabled(o.Client.Discovery(), referenceGrantResource)
		if err != nil {
			return nil, fmt.Errorf("discovering %s: %w", referenceGrantResource.GroupVersion(), err)
		}
		if !served {
			logger.Info("Cross-namespace data sources will be refused: the API server does not serve " + referenceGrantResource.GroupVersion().String() + " referencegrants (install the Gateway API CRDs, then restart the sidecar)")
			return d, nil
		}
		d.grantInformer = dynamicinformer.NewFilteredDynamicInformer(o.DynamicClient, referenceGrantResource, metav1.NamespaceAll,
			resyncPeriod, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, nil).Informer()
		if err := d.grantInformer.SetTransform(typedReferenceGrant); err != nil {
			return nil, fmt.Errorf("ReferenceGrant informer: %w", err)
		}
		d.referenceGrants = controller.ReferenceGrantIndex(d.grantInformer.GetIndexer())
		logger.Info("Cross-namespace data sources are on: watching ReferenceGrants")
	}
	return d, nil
}

// snapshotProtectionBlockers says why source snapshots cannot be protected
// ("" when they can): the VolumeSnapshot API is not served, or RBAC does
// not let the sidecar list, watch and update VolumeSnapshots. An access
// review is allowed to every authenticated user, so asking costs no rule.
func snapshotProtectionBlockers(ctx context.Context, client kubernetes.Interface) (string, error) {
	served, err := discovery.IsResourceEnabled(client.Discovery(), volumeSnapshotResource)
	if err != nil {
		return "", fmt.Errorf("discovering %s: %w", volumeSnapshotResource.GroupVersion(), err)
	}
	if !served {
		return "the API server does not serve volumesnapshots in " + volumeSnapshotResource.GroupVersion().String() + " (install the snapshot CRDs, then restart the sidecar)", nil
	}
	var denied []string
	for _, verb := range []string{"list", "watch", "update"} {
		ok, err := allowed(ctx, client, volumeSnapshotResource.Group, volumeSnapshotResource.Resource, verb)
		if err != nil {
			return "", fmt.Errorf("asking whether RBAC allows %s on volumesnapshots: %w", verb, err)
		}
		if !ok {
			denied = append(denied, verb)
		}
	}
	if len(denied) > 0 {
		return "RBAC does not allow " + strings.Join(denied, ", ") + " on volumesnapshots.snapshot.storage.k8s.io (upstream v6.3's ClusterRole grants them)", nil
	}
	return "", nil
}

// restoresSupported: the driver can restore snapshots.
func restoresSupported(caps map[csi.ControllerServiceCapability_RPC_Type]bool) bool {
	return caps[csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT]
}

// start starts the informers that exist; they stop with ctx.
func (d *dataSources) start(ctx context.Context) {
	if d.snapshotFactory != nil {
		d.snapshotFactory.Start(ctx.Done())
	}
	if d.grantInformer != nil {
		d.grants.Go(func() { d.grantInformer.RunWithContext(ctx) })
	}
}

// shutdown waits for the informers' goroutines, which end with ctx.
func (d *dataSources) shutdown() {
	if d.snapshotFactory != nil {
		d.snapshotFactory.Shutdown()
	}
	d.grants.Wait()
}

// synced waits for the factories' caches, false if ctx ended first.
func (d *dataSources) synced(ctx context.Context) bool {
	logger := klog.FromContext(ctx)
	if d.snapshotFactory != nil {
		for typ, ok := range d.snapshotFactory.WaitForCacheSync(ctx.Done()) {
			if !ok {
				logger.Info("Stopped before the informer cache synced", "type", typ.String())
				return false
			}
		}
	}
	if d.grantInformer != nil && !cache.WaitForNamedCacheSyncWithContext(ctx, d.grantInformer.HasSynced) {
		return false
	}
	return true
}

var referenceGrantResource = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1beta1", Resource: "referencegrants"}

// typedReferenceGrant turns the dynamic informer's objects into gateway-api's
// type before they are cached, so the cache holds only what is read.
func typedReferenceGrant(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	grant := &gatewayv1beta1.ReferenceGrant{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), grant); err != nil {
		return nil, fmt.Errorf("ReferenceGrant %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	grant.ManagedFields = nil
	return grant, nil
}
