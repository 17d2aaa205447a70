package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned"
	"github.com/csi-protect/external-provisioner/pkg/generated/informers/externalversions"
	localv1listers "github.com/csi-protect/external-provisioner/pkg/generated/listers/local/v1"
	localv1alpha1listers "github.com/csi-protect/external-provisioner/pkg/generated/listers/local/v1alpha1"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"
)

// DefaultResync is how often discovery runs again when Options.Resync is 0.
const DefaultResync = time.Minute

// loopName names the agent's queue, logger and log lines.
const loopName = "local-volume-agent"

// Options configure the agent of one node.
type Options struct {
	// NodeName is the node the agent runs on (spec.nodeName of its pod).
	NodeName string
	// SymlinkRoot is the host folder of the <storageClass>/<device>
	// symlinks that the PVs point at, e.g. /mnt/local-storage. Absolute.
	SymlinkRoot string
	Client      kubernetes.Interface
	// LocalClient reads the LocalVolume and LocalVolumeSet objects, over
	// informers the agent makes and runs itself.
	LocalClient versioned.Interface
	// Runner runs lsblk; FS is the host filesystem (devices.OSFS, or a
	// devices.RootedFS in tests); Checker selects devices and re-checks
	// them before a wipe; Wiper wipes released devices. All required.
	Runner  devices.Runner
	FS      devices.FS
	Checker *devices.Checker
	Wiper   devices.Wiper
	// EventRecorder receives events on owners and PVs. Required.
	EventRecorder record.EventRecorder
	// Metrics receive the agent's metrics; nil keeps a private,
	// unregistered set.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil is the reconcile
	// loop's default.
	RateLimiter workqueue.TypedRateLimiter[Key]
	// Processed, if set, is told of every sync (for tests).
	Processed func(key Key, result reconcile.Result, err error)
	// Resync is how often every owner and PV is synced again, which runs
	// device discovery again (disks can be added at any time); 0 is
	// DefaultResync.
	Resync time.Duration
}

// Agent provisions local PVs from the devices of one node and cleans them
// when they are released. See the package documentation.
type Agent struct {
	nodeName     string
	symlinkRoot  string
	client       kubernetes.Interface
	volumeTarget finalizer.Target
	localClient  versioned.Interface
	runner       devices.Runner
	fs           devices.FS
	checker      *devices.Checker
	wiper        devices.Wiper
	recorder     record.EventRecorder
	metrics      *Metrics
	resync       time.Duration
	loop         *reconcile.Loop[Key]

	// Set up by Run, before any handler or worker runs.
	mu              sync.Mutex // guards started and hostname
	started         bool
	hostname        string
	nodes           corelisters.NodeLister
	volumes         corelisters.PersistentVolumeLister
	localVolumes    localv1listers.LocalVolumeLister
	localVolumeSets localv1alpha1listers.LocalVolumeSetLister

	// reported remembers the rejections and refusals already announced by
	// an event, so a resync does not repeat them.
	reportedMu sync.Mutex
	reported   map[string]bool
}

// New checks opts. The agent starts nothing before Run.
func New(opts Options) (*Agent, error) {
	switch {
	case opts.NodeName == "":
		return nil, errors.New("local volume agent needs a node name")
	case opts.SymlinkRoot == "" || !filepath.IsAbs(opts.SymlinkRoot) || filepath.Clean(opts.SymlinkRoot) != opts.SymlinkRoot || opts.SymlinkRoot == "/":
		return nil, fmt.Errorf("local volume agent needs an absolute, clean symlink root other than /, got %q", opts.SymlinkRoot)
	case opts.Client == nil:
		return nil, errors.New("local volume agent needs a client")
	case opts.LocalClient == nil:
		return nil, errors.New("local volume agent needs a LocalVolume client")
	case opts.Runner == nil, opts.FS == nil, opts.Checker == nil, opts.Wiper == nil:
		return nil, errors.New("local volume agent needs a Runner, an FS, a Checker and a Wiper")
	case opts.EventRecorder == nil:
		return nil, errors.New("local volume agent needs an event recorder")
	}
	m := cmp.Or(opts.Metrics, NewMetrics())
	resync := opts.Resync
	if resync <= 0 {
		resync = DefaultResync
	}
	a := &Agent{
		nodeName:     opts.NodeName,
		symlinkRoot:  opts.SymlinkRoot,
		client:       opts.Client,
		volumeTarget: finalizer.PersistentVolumes(opts.Client),
		localClient:  opts.LocalClient,
		runner:       opts.Runner,
		fs:           opts.FS,
		checker:      opts.Checker,
		wiper:        opts.Wiper,
		recorder:     opts.EventRecorder,
		metrics:      m,
		resync:       resync,
		reported:     map[string]bool{},
	}
	loop, err := reconcile.New(reconcile.Options[Key]{
		Name:        loopName,
		Sync:        a.sync,
		LogValues:   Key.logValues,
		RateLimiter: opts.RateLimiter,
		Processed:   opts.Processed,
	})
	if err != nil {
		return nil, err
	}
	a.loop = loop
	return a, nil
}

// Run starts the informers, waits for their caches and syncs until ctx
// ends; it then stops its worker and informers and returns nil. An Agent
// runs once.
//
// The node is read first: the value of its kubernetes.io/hostname label
// (NodeName when it has none) is what the PVs of this node carry, and the
// PV informer only lists those.
func (a *Agent) Run(ctx context.Context) error {
	defer utilruntime.HandleCrash()
	a.mu.Lock()
	if a.started {
		a.mu.Unlock()
		return errors.New("local volume agent: Run called twice")
	}
	a.started = true
	a.mu.Unlock()

	// The loop names its logger itself; logger is for the lines of Run
	// and of the event handlers.
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("node", a.nodeName))
	logger := klog.FromContext(ctx).WithName(loopName)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// The informer factories started, shut down (which waits for their
	// informers) once ctx is cancelled.
	var started []interface{ Shutdown() }
	defer func() {
		cancel()
		a.loop.ShutDown()
		for _, f := range started {
			f.Shutdown()
		}
		wg.Wait()
	}()

	// The owner informers exist (not yet running) before any handler can
	// look at them.
	ownerFactory := externalversions.NewSharedInformerFactory(a.localClient, 0)
	lvInformer := ownerFactory.Local().V1().LocalVolumes()
	lvsInformer := ownerFactory.Local().V1alpha1().LocalVolumeSets()
	a.localVolumes, a.localVolumeSets = lvInformer.Lister(), lvsInformer.Lister()
	for _, inf := range []cache.SharedIndexInformer{lvInformer.Informer(), lvsInformer.Informer()} {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj interface{}) { a.onOwner(obj, false) },
			UpdateFunc: func(_, obj interface{}) { a.onOwner(obj, false) },
			DeleteFunc: func(obj interface{}) { a.onOwner(obj, true) },
		}); err != nil {
			return err
		}
	}

	// The node, for its hostname label and for the owners' node selectors.
	nodeFactory := informers.NewSharedInformerFactoryWithOptions(a.client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", a.nodeName).String()
		}))
	nodeInformer := nodeFactory.Core().V1().Nodes()
	if _, err := nodeInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(interface{}) { a.enqueueAllOwners() },
		UpdateFunc: func(oldObj, newObj interface{}) { a.onNodeUpdate(logger, oldObj, newObj) },
	}); err != nil {
		return err
	}
	a.nodes = nodeInformer.Lister()
	nodeFactory.Start(ctx.Done())
	started = append(started, nodeFactory)
	if !cache.WaitForNamedCacheSyncWithContext(ctx, nodeInformer.Informer().HasSynced) {
		return nil
	}
	hostname := a.nodeName
	if node, err := a.nodes.Get(a.nodeName); err == nil {
		if h := node.Labels[local.NodeLabel]; h != "" {
			hostname = h
		}
	} else {
		logger.Info("Node not found, using its name as its hostname label", "err", err)
	}
	a.mu.Lock()
	a.hostname = hostname
	a.mu.Unlock()

	pvFactory := informers.NewSharedInformerFactoryWithOptions(a.client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = labels.Set{local.NodeLabel: hostname}.String()
		}))
	pvInformer := pvFactory.Core().V1().PersistentVolumes()
	a.volumes = pvInformer.Lister()
	if _, err := pvInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    a.onPV,
		UpdateFunc: func(_, obj interface{}) { a.onPV(obj) },
		DeleteFunc: a.onPVDelete,
	}); err != nil {
		return err
	}
	synced := []cache.InformerSynced{pvInformer.Informer().HasSynced, lvInformer.Informer().HasSynced, lvsInformer.Informer().HasSynced}
	ownerFactory.Start(ctx.Done())
	pvFactory.Start(ctx.Done())
	started = append(started, ownerFactory, pvFactory)

	logger.Info("Starting local volume agent", "hostname", hostname, "symlinkRoot", a.symlinkRoot, "resync", a.resync)
	wg.Go(func() {
		if !cache.WaitForCacheSync(ctx.Done(), synced...) {
			return
		}
		wait.UntilWithContext(ctx, func(context.Context) {
			a.enqueueAllOwners()
			a.enqueueAllVolumes()
		}, a.resync)
	})
	// One worker: two owners selecting the same disk must not both claim
	// it, and the claim check (symlinks and PVs already there) is only
	// race-free if provisioning is serial.
	a.loop.Run(ctx, 1, synced...)
	return nil
}

// sync brings what key names a step further.
func (a *Agent) sync(ctx context.Context, key Key) (reconcile.Result, error) {
	switch key.Kind {
	case KindPersistentVolume:
		return reconcile.Done, a.syncVolume(ctx, key.Name)
	case KindLocalVolume, KindLocalVolumeSet:
		return reconcile.Done, a.syncOwner(ctx, key)
	}
	// Not a key the handlers make; retrying cannot help.
	klog.FromContext(ctx).Error(nil, "Dropping a key of an unknown kind", "key", key)
	return reconcile.Done, nil
}

func (a *Agent) getHostname() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hostname
}
