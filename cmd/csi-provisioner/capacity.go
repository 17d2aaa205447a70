package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/util/workqueue"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/capacity"
)

// capacityTracking is the CSIStorageCapacity controller and the informer
// of its own objects.
type capacityTracking struct {
	controller *capacity.Controller
	factory    informers.SharedInformerFactory
	threads    int
}

// capacityOptions are what newCapacityTracking reads.
type capacityOptions struct {
	Config *config
	// RESTConfig makes capacity tracking's own client; Getenv finds its
	// namespace and owner.
	RESTConfig *rest.Config
	Getenv     func(string) string
	Driver     *csiDriver
	// Factory is the shared factory; StorageClasses, claims (for the
	// largest request of each class), and Nodes and CSINodes for the
	// segments of a central sidecar come from it.
	Factory informers.SharedInformerFactory
	// Local is this sidecar's node with --node-deployment, else nil.
	Local *localNode
	// Registry receives the controller's metrics.
	Registry k8smetrics.KubeRegistry
}

// newCapacityTracking builds capacity tracking, or returns nil without
// --enable-capacity or when the driver cannot report capacity.
func newCapacityTracking(ctx context.Context, o capacityOptions) (*capacityTracking, error) {
	logger := klog.FromContext(ctx)
	cfg := o.Config
	if !cfg.enableCapacity {
		return nil, nil
	}
	if !o.Driver.ControllerCapabilities[csi.ControllerServiceCapability_RPC_GET_CAPACITY] {
		// Upstream would call GetCapacity anyway and fail on every poll.
		logger.Error(nil, "The CSI driver does not have the GET_CAPACITY capability: no CSIStorageCapacity objects are published despite --enable-capacity")
		return nil, nil
	}
	namespace := o.Getenv("NAMESPACE")
	if namespace == "" {
		return nil, errors.New("--enable-capacity needs the NAMESPACE environment variable (the sidecar's namespace, from the downward API)")
	}

	// Capacity writes have their own rate limits, so a burst of them
	// never slows provisioning (and the reverse).
	rc := rest.CopyConfig(o.RESTConfig)
	rc.QPS = cfg.kubeAPICapacityQPS
	rc.Burst = cfg.kubeAPICapacityBurst
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("creating the capacity client: %w", err)
	}
	owner, err := capacityOwner(ctx, cfg, rc, client, namespace, o.Getenv)
	if err != nil {
		return nil, err
	}

	managedBy := capacity.ManagedBy
	var topology capacity.Topology
	switch {
	case o.Local != nil:
		managedBy = capacity.ManagedByNode(o.Local.Name)
		topology = capacity.FixedTopology{Segment: capacity.NewSegment(o.Local.Info.GetAccessibleTopology().GetSegments())}
	case o.Driver.SupportsTopology():
		nodes, err := capacity.NewNodeTopology(capacity.NodeTopologyOptions{
			DriverName:  o.Driver.Name,
			Nodes:       o.Factory.Core().V1().Nodes(),
			CSINodes:    o.Factory.Storage().V1().CSINodes(),
			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](cfg.retryIntervalStart, cfg.retryIntervalMax),
		})
		if err != nil {
			return nil, err
		}
		topology = nodes
	default:
		// One pool for the whole cluster.
		topology = capacity.FixedTopology{}
	}

	// Updates that cross the largest request the scheduler may still
	// place go first.
	largestRequest, err := largestPlaceableRequest(o.Factory.Core().V1().PersistentVolumeClaims())
	if err != nil {
		return nil, err
	}

	// Only this sidecar's objects, in its namespace: the cache stays small
	// and other sidecars' objects are never touched.
	factory := informers.NewSharedInformerFactoryWithOptions(client, resyncPeriod,
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(opts *metav1.ListOptions) {
			opts.LabelSelector = capacity.Selector(o.Driver.Name, managedBy).String()
		}),
		informers.WithTransform(dropManagedFields))
	ctrl, err := capacity.New(capacity.Options{
		DriverName:       o.Driver.Name,
		ManagedBy:        managedBy,
		Namespace:        namespace,
		Owner:            owner,
		Client:           client,
		CSI:              csi.NewControllerClient(o.Driver.Conn),
		Timeout:          cfg.timeout,
		PollInterval:     cfg.capacityPollInterval,
		ImmediateBinding: cfg.capacityForImmediateBinding,
		Topology:         topology,
		ClassInformer:    o.Factory.Storage().V1().StorageClasses(),
		CapacityInformer: factory.Storage().V1().CSIStorageCapacities(),
		RateLimiter:      workqueue.NewTypedItemExponentialFailureRateLimiter[capacity.Key](cfg.retryIntervalStart, cfg.retryIntervalMax),
		WriteRateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[capacity.Key](cfg.retryIntervalStart, cfg.retryIntervalMax),
		LargestRequest:   largestRequest,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the capacity controller: %w", err)
	}
	if o.Registry != nil {
		o.Registry.CustomMustRegister(ctrl)
	}
	logger.Info("Publishing storage capacity", "namespace", namespace, "managedBy", managedBy, "owner", ownerText(owner), "pollInterval", cfg.capacityPollInterval)
	return &capacityTracking{controller: ctrl, factory: factory, threads: int(cfg.capacityThreads)}, nil
}

// capacityOwner finds the owner of the objects from POD_NAME, as
// --capacity-ownerref-level says.
func capacityOwner(ctx context.Context, cfg *config, rc *rest.Config, client kubernetes.Interface, namespace string, getenv func(string) string) (*metav1.OwnerReference, error) {
	if cfg.capacityOwnerrefLevel < 0 {
		return nil, nil
	}
	pod := getenv("POD_NAME")
	if pod == "" {
		return nil, fmt.Errorf("--enable-capacity with --capacity-ownerref-level=%d needs the POD_NAME environment variable (or --capacity-ownerref-level=-1 for objects without owner)", cfg.capacityOwnerrefLevel)
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("creating the owner lookup client: %w", err)
	}
	lookup := capacity.OwnerLookup{
		Client: dyn,
		Mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery())),
	}
	owner, err := lookup.Owner(ctx, namespace, pod, cfg.capacityOwnerrefLevel)
	if err != nil {
		return nil, fmt.Errorf("finding the owner of CSIStorageCapacity objects: %w", err)
	}
	return owner, nil
}

func ownerText(owner *metav1.OwnerReference) string {
	if owner == nil {
		return "none"
	}
	return owner.APIVersion + " " + owner.Kind + " " + owner.Name
}

func (c *capacityTracking) start(ctx context.Context) {
	if c != nil {
		c.factory.Start(ctx.Done())
	}
}

// worker runs the controller, which waits for its own caches; nil when
// capacity tracking is off.
func (c *capacityTracking) worker() worker {
	if c == nil {
		return nil
	}
	return func(ctx context.Context) { c.controller.Run(ctx, c.threads) }
}

func (c *capacityTracking) shutdown() {
	if c != nil {
		c.factory.Shutdown()
	}
}
