package testutil

import (
	"time"

	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
	libmetrics "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller/metrics"
)

// LibraryAdapter hands library v10 its client, informers and node lister,
// as the project's adapter (pkg/controller/library) does.
type LibraryAdapter interface {
	Client(client, events kubernetes.Interface) kubernetes.Interface
	ClaimsInformer(informer cache.SharedIndexInformer) cache.SharedIndexInformer
	VolumesInformer(informer cache.SharedIndexInformer) cache.SharedIndexInformer
	NodesLister() corelisters.NodeLister
}

// LibraryOptions say how NewLibrary wires the library.
type LibraryOptions struct {
	// Driver is the provisioner name the library serves.
	Driver      string
	Provisioner libcontroller.Provisioner
	// Adapter, if set, hands the library its client, informers and node
	// lister, as cmd/csi-provisioner does; nil gives them as they are.
	Adapter LibraryAdapter
	// BackOff is the delay of every retry; 10ms if zero, so that a retry
	// that should not happen shows at once.
	BackOff time.Duration
	// AddFinalizer is the library's option of that name (the gate
	// HonorPVReclaimPolicy).
	AddFinalizer bool
}

// NewLibrary is library v10's provisioning controller over the env's fake
// API server and informers, as cmd/csi-provisioner wires it where a test
// can tell: no leader election, no metrics server, failures retried for
// ever, and one worker. Its counts of claims provisioned and failed, of
// subsystem "test" (test_persistentvolumeclaim_provision_total...), are in
// the env's registry. Run it with e.Run(t, lib.Run) once StartInformers
// has returned.
func (e *Env) NewLibrary(o LibraryOptions) *libcontroller.ProvisionController {
	var client kubernetes.Interface = e.Client
	claims := e.Informers.Core().V1().PersistentVolumeClaims().Informer()
	volumes := e.Informers.Core().V1().PersistentVolumes().Informer()
	var nodes corelisters.NodeLister = e.Informers.Core().V1().Nodes().Lister()
	if a := o.Adapter; a != nil {
		client, claims, volumes, nodes = a.Client(e.Client, nil), a.ClaimsInformer(claims), a.VolumesInformer(volumes), a.NodesLister()
	}
	backOff := o.BackOff
	if backOff == 0 {
		backOff = 10 * time.Millisecond
	}
	m := libmetrics.New("test")
	e.Registry.RawMustRegister(m.PersistentVolumeClaimProvisionTotal, m.PersistentVolumeClaimProvisionFailedTotal)
	return libcontroller.NewProvisionController(klog.FromContext(e.Ctx), client, o.Driver, o.Provisioner,
		libcontroller.LeaderElection(false),
		libcontroller.MetricsPort(0),
		libcontroller.FailedProvisionThreshold(0),
		libcontroller.FailedDeleteThreshold(0),
		libcontroller.RateLimiter(workqueue.NewTypedItemExponentialFailureRateLimiter[any](backOff, backOff)),
		libcontroller.Threadiness(1),
		libcontroller.ClaimsInformer(claims),
		libcontroller.VolumesInformer(volumes),
		libcontroller.ClassesInformer(e.Informers.Storage().V1().StorageClasses().Informer()),
		libcontroller.NodesLister(nodes),
		libcontroller.AddFinalizer(o.AddFinalizer),
		libcontroller.MetricsInstance(m),
	)
}
