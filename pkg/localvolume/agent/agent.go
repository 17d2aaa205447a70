package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/devices"
)

// DefaultResync is how often discovery runs again when Options.Resync is 0.
const DefaultResync = time.Minute

// Options configure the agent of one node.
type Options struct {
	// NodeName is the node the agent runs on (spec.nodeName of its pod).
	NodeName string
	// SymlinkRoot is the host folder of the <storageClass>/<device>
	// symlinks that the PVs point at, e.g. /mnt/local-storage. Absolute.
	SymlinkRoot string
	Client      kubernetes.Interface
	// Dynamic reads the LocalVolume and LocalVolumeSet objects. Required
	// unless CRSource is set.
	Dynamic dynamic.Interface
	// CRSource replaces Dynamic as the source of the owner objects; nil
	// means NewDynamicCRSource(Dynamic).
	CRSource CRSource
	// Runner runs lsblk; FS is the host filesystem (devices.OSFS, or a
	// devices.RootedFS in tests); Checker selects devices and re-checks
	// them before a wipe; Wiper wipes released devices. All required.
	Runner  devices.Runner
	FS      devices.FS
	Checker *devices.Checker
	Wiper   devices.Wiper
	// EventRecorder receives events on owners and PVs; nil drops them.
	EventRecorder record.EventRecorder
	// Metrics receive the agent's metrics; nil keeps a private,
	// unregistered set.
	Metrics *Metrics
	// RateLimiter paces retries of a failed sync; nil is exponential from
	// 1s to 5m.
	RateLimiter workqueue.TypedRateLimiter[string]
	// Resync is how often every owner and PV is synced again, which runs
	// device discovery again (disks can be added at any time); 0 is
	// DefaultResync.
	Resync time.Duration
}

// Agent provisions local PVs from the devices of one node and cleans them
// when they are released. See the package documentation.
type Agent struct {
	nodeName    string
	symlinkRoot string
	client      kubernetes.Interface
	crSource    CRSource
	runner      devices.Runner
	fs          devices.FS
	checker     *devices.Checker
	wiper       devices.Wiper
	recorder    record.EventRecorder
	metrics     *Metrics
	resync      time.Duration
	queue       workqueue.TypedRateLimitingInterface[string]

	// Set up by Run.
	mu        sync.Mutex // guards started and hostname
	started   bool
	hostname  string
	nodes     corelisters.NodeLister
	volumes   corelisters.PersistentVolumeLister
	volumeInf cache.SharedIndexInformer
	ownerInfs map[string]cache.SharedIndexInformer

	// reported remembers the rejections and refusals already announced by
	// an event, so a resync does not repeat them.
	reportedMu sync.Mutex
	reported   map[string]bool
}

// Queue keys: "owner/<kind>/<namespace>/<name>" and "pv/<name>".
const (
	ownerKeyPrefix = "owner/"
	pvKeyPrefix    = "pv/"
)

// New checks opts. The agent starts nothing before Run.
func New(opts Options) (*Agent, error) {
	switch {
	case opts.NodeName == "":
		return nil, errors.New("local volume agent needs a node name")
	case opts.SymlinkRoot == "" || !filepath.IsAbs(opts.SymlinkRoot) || filepath.Clean(opts.SymlinkRoot) != opts.SymlinkRoot || opts.SymlinkRoot == "/":
		return nil, fmt.Errorf("local volume agent needs an absolute, clean symlink root other than /, got %q", opts.SymlinkRoot)
	case opts.Client == nil:
		return nil, errors.New("local volume agent needs a client")
	case opts.Dynamic == nil && opts.CRSource == nil:
		return nil, errors.New("local volume agent needs a dynamic client (or a CRSource)")
	case opts.Runner == nil, opts.FS == nil, opts.Checker == nil, opts.Wiper == nil:
		return nil, errors.New("local volume agent needs a Runner, an FS, a Checker and a Wiper")
	}
	src := opts.CRSource
	if src == nil {
		src = NewDynamicCRSource(opts.Dynamic)
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute)
	}
	recorder := opts.EventRecorder
	if recorder == nil {
		// A FakeRecorder without a channel discards what it is given.
		recorder = &record.FakeRecorder{}
	}
	m := opts.Metrics
	if m == nil {
		m = NewMetrics()
	}
	resync := opts.Resync
	if resync <= 0 {
		resync = DefaultResync
	}
	return &Agent{
		nodeName:    opts.NodeName,
		symlinkRoot: opts.SymlinkRoot,
		client:      opts.Client,
		crSource:    src,
		runner:      opts.Runner,
		fs:          opts.FS,
		checker:     opts.Checker,
		wiper:       opts.Wiper,
		recorder:    recorder,
		metrics:     m,
		resync:      resync,
		reported:    map[string]bool{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "local-volume-agent"}),
	}, nil
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

	logger := klog.FromContext(ctx).WithName("local-volume-agent").WithValues("node", a.nodeName)
	ctx = klog.NewContext(ctx, logger)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		a.queue.ShutDown()
		wg.Wait()
		logger.Info("Stopped local volume agent")
	}()

	// The owner informers exist (not yet running) before any handler can
	// look at them.
	a.ownerInfs = map[string]cache.SharedIndexInformer{}
	for _, kind := range []string{KindLocalVolume, KindLocalVolumeSet} {
		inf := newCRInformer(a.crSource, kind)
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj interface{}) { a.onOwner(kind, obj) },
			UpdateFunc: func(_, obj interface{}) { a.onOwner(kind, obj) },
			DeleteFunc: func(obj interface{}) { a.onOwner(kind, obj) },
		}); err != nil {
			return err
		}
		a.ownerInfs[kind] = inf
	}

	// The node, for its hostname label and for the owners' node selectors.
	nodeFactory := informers.NewSharedInformerFactoryWithOptions(a.client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", a.nodeName).String()
		}))
	nodeInformer := nodeFactory.Core().V1().Nodes()
	if _, err := nodeInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(interface{}) { a.enqueueAllOwners() },
		UpdateFunc: a.onNodeUpdate,
	}); err != nil {
		return err
	}
	a.nodes = nodeInformer.Lister()
	nodeFactory.Start(ctx.Done())
	defer nodeFactory.Shutdown()
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
	a.volumeInf = pvInformer.Informer()
	if _, err := a.volumeInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    a.onPV,
		UpdateFunc: func(_, obj interface{}) { a.onPV(obj) },
		DeleteFunc: a.onPVDelete,
	}); err != nil {
		return err
	}
	synced := []cache.InformerSynced{a.volumeInf.HasSynced}
	for _, inf := range a.ownerInfs {
		synced = append(synced, inf.HasSynced)
		wg.Go(func() { inf.RunWithContext(ctx) })
	}
	pvFactory.Start(ctx.Done())
	defer pvFactory.Shutdown()

	logger.Info("Starting local volume agent", "hostname", hostname, "symlinkRoot", a.symlinkRoot, "resync", a.resync)
	if !cache.WaitForNamedCacheSyncWithContext(ctx, synced...) {
		return nil
	}
	// One worker: two owners selecting the same disk must not both claim
	// it, and the claim check (symlinks and PVs already there) is only
	// race-free if provisioning is serial.
	wg.Go(func() { wait.UntilWithContext(ctx, a.worker, time.Second) })
	wg.Go(func() {
		wait.UntilWithContext(ctx, func(context.Context) {
			a.enqueueAllOwners()
			a.enqueueAllVolumes()
		}, a.resync)
	})
	<-ctx.Done()
	return nil
}

func ownerKey(kind, namespace, name string) string {
	return ownerKeyPrefix + kind + "/" + namespace + "/" + name
}

func (a *Agent) onOwner(kind string, obj interface{}) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	a.queue.Add(ownerKey(kind, u.GetNamespace(), u.GetName()))
	// A deleted or deleting owner changes what happens to its PVs that are
	// being deleted (their symlinks go).
	if u.GetDeletionTimestamp() != nil || a.ownerGone(kind, u) {
		a.enqueueVolumesOf(kind, u.GetNamespace(), u.GetName())
	}
}

func (a *Agent) ownerGone(kind string, u *unstructured.Unstructured) bool {
	_, exists, err := a.ownerInfs[kind].GetStore().Get(u)
	return err == nil && !exists
}

func (a *Agent) onNodeUpdate(oldObj, newObj interface{}) {
	old, ok1 := oldObj.(*corev1.Node)
	cur, ok2 := newObj.(*corev1.Node)
	if ok1 && ok2 && labels.Equals(old.Labels, cur.Labels) {
		return
	}
	if h := a.getHostname(); ok2 && h != "" && cur.Labels[local.NodeLabel] != "" && cur.Labels[local.NodeLabel] != h {
		klog.Background().Info("The node's hostname label changed; PVs keep the old one until the agent restarts",
			"node", a.nodeName, "old", h, "new", cur.Labels[local.NodeLabel])
	}
	a.enqueueAllOwners()
}

func (a *Agent) onPV(obj interface{}) {
	if pv, ok := obj.(*corev1.PersistentVolume); ok && a.isOurs(pv) {
		a.queue.Add(pvKeyPrefix + pv.Name)
	}
}

// onPVDelete: a PV gone frees its device for a new PV if its owner is
// alive, so discovery runs for the owner.
func (a *Agent) onPVDelete(obj interface{}) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if pv, ok := obj.(*corev1.PersistentVolume); ok && a.isOurs(pv) {
		a.queue.Add(ownerKey(pv.Labels[local.OwnerKindLabel], pv.Labels[local.OwnerNamespaceLabel], pv.Labels[local.OwnerNameLabel]))
	}
}

func (a *Agent) enqueueAllOwners() {
	for kind, inf := range a.ownerInfs {
		for _, obj := range inf.GetStore().List() {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				a.queue.Add(ownerKey(kind, u.GetNamespace(), u.GetName()))
			}
		}
	}
}

func (a *Agent) enqueueAllVolumes() {
	pvs, err := a.volumes.List(labels.Everything())
	if err != nil {
		return
	}
	for _, pv := range pvs {
		a.onPV(pv)
	}
}

func (a *Agent) enqueueVolumesOf(kind, namespace, name string) {
	if a.volumes == nil {
		return
	}
	pvs, err := a.volumes.List(labels.SelectorFromSet(labels.Set{
		local.OwnerKindLabel: kind, local.OwnerNamespaceLabel: namespace, local.OwnerNameLabel: name,
	}))
	if err != nil {
		return
	}
	for _, pv := range pvs {
		a.onPV(pv)
	}
}

func (a *Agent) worker(ctx context.Context) {
	for a.processNext(ctx) {
	}
}

func (a *Agent) processNext(ctx context.Context) bool {
	key, quit := a.queue.Get()
	if quit {
		return false
	}
	defer a.queue.Done(key)
	err := a.sync(ctx, key)
	logger := klog.FromContext(ctx)
	switch {
	case err == nil:
		a.queue.Forget(key)
	case apierrors.IsConflict(err):
		logger.V(4).Info("Object changed during sync, will retry", "key", key, "err", err)
		a.queue.AddRateLimited(key)
	default:
		logger.Error(err, "Local volume agent sync failed, will retry", "key", key)
		a.queue.AddRateLimited(key)
	}
	return true
}

// sync dispatches a queue key.
func (a *Agent) sync(ctx context.Context, key string) error {
	if name, ok := strings.CutPrefix(key, pvKeyPrefix); ok {
		logger := klog.LoggerWithValues(klog.FromContext(ctx), "PV", klog.KRef("", name))
		return a.syncVolume(klog.NewContext(ctx, logger), name)
	}
	if rest, ok := strings.CutPrefix(key, ownerKeyPrefix); ok {
		parts := strings.SplitN(rest, "/", 3)
		if len(parts) != 3 {
			return nil
		}
		logger := klog.LoggerWithValues(klog.FromContext(ctx), parts[0], klog.KRef(parts[1], parts[2]))
		return a.syncOwner(klog.NewContext(ctx, logger), parts[0], parts[1], parts[2])
	}
	return nil
}

// getOwner reads an owner from the cache; nil when it does not exist.
func (a *Agent) getOwner(kind, namespace, name string) (*owner, error) {
	inf, ok := a.ownerInfs[kind]
	if !ok {
		return nil, nil
	}
	obj, exists, err := inf.GetStore().GetByKey(namespace + "/" + name)
	if err != nil || !exists {
		return nil, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("unexpected %T in the %s cache", obj, kind)
	}
	return ownerFrom(kind, u)
}

func (a *Agent) getHostname() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hostname
}

// isOurs tells whether pv is a PV of this node created from an owner.
func (a *Agent) isOurs(pv *corev1.PersistentVolume) bool {
	l := pv.Labels
	h := a.getHostname()
	return h != "" && l[local.NodeLabel] == h &&
		l[local.OwnerKindLabel] != "" && l[local.OwnerNameLabel] != "" &&
		pv.Spec.Local != nil
}

// report records an event once per key; it returns whether it did.
func (a *Agent) reportOnce(key string, emit func()) bool {
	a.reportedMu.Lock()
	seen := a.reported[key]
	a.reported[key] = true
	a.reportedMu.Unlock()
	if !seen {
		emit()
	}
	return !seen
}

// forgetReports drops the remembered reports with the prefix, so a problem
// that comes back after being solved is announced again.
func (a *Agent) forgetReports(prefix string) {
	a.reportedMu.Lock()
	defer a.reportedMu.Unlock()
	for k := range a.reported {
		if strings.HasPrefix(k, prefix) {
			delete(a.reported, k)
		}
	}
}
