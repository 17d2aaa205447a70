package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// DeletionOptions configures the PVC protection benchmark: a namespace with
// many scheduled pods (which use other claims) and a batch of unused claims
// that are deleted at once; one PVC protection controller runs at a time.
type DeletionOptions struct {
	BinDir, ControlPlaneDir string
	Quick                   bool
	// Pods are scheduled pods in the claims' namespace, each using a claim
	// of its own that is not part of the batch.
	Pods int
	// Claims are the unused claims deleted together.
	Claims int
	// QuietDeletions are single unused claims deleted one after another,
	// each alone, in a quiet namespace of QuietPods scheduled pods, after
	// the batch: the latency of one deletion where nothing else happens.
	QuietDeletions int
	QuietPods      int
	Runs           int
	// Controllers are compared, runs interleaved.
	Controllers []DeletionController
	// KCMArgs are kube-controller-manager's flags in every run; its client
	// limit is raised as in the provisioning benchmark.
	KCMArgs []string
	// SidecarArgs are csi-provisioner's flags in every run.
	SidecarArgs  []string
	Creator      CreatorOptions
	PhaseTimeout time.Duration
	WorkRoot     string
	KeepWorkDirs bool
	Progress     io.Writer
}

// DeletionController is the PVC protection controller under test.
type DeletionController struct {
	Name string `json:"name"`
	// KCMControllers are kube-controller-manager's controllers besides the
	// PV binder.
	KCMControllers []string `json:"kcmControllers"`
	// SidecarArgs are appended to DeletionOptions.SidecarArgs.
	SidecarArgs []string `json:"sidecarArgs"`
	// Client is who removes the finalizers, as the audit log names it.
	Client string `json:"client"`
}

// The two controllers compared. kube-controller-manager's PV protection
// runs in both: it is not what is measured, and the PVs must go.
var (
	KCMPVCProtection = DeletionController{
		Name:           "kube-controller-manager",
		KCMControllers: []string{framework.ControllerPVProtection, framework.ControllerPVCProtection},
		Client:         clientKCM,
	}
	SidecarPVCProtection = DeletionController{
		Name:           "csi-provisioner",
		KCMControllers: []string{framework.ControllerPVProtection},
		SidecarArgs:    []string{"--feature-gates=PVCProtection=true"},
		Client:         clientSidecar,
	}
)

// DefaultDeletionOptions is the comparison the PVC protection design is
// measured by: 1,000 unused claims deleted in a namespace of 3,000 pods.
func DefaultDeletionOptions() DeletionOptions {
	o := DefaultOptions()
	return DeletionOptions{
		Pods:           3000,
		Claims:         1000,
		QuietDeletions: 5,
		QuietPods:      10,
		Runs:           3,
		Controllers:    []DeletionController{KCMPVCProtection, SidecarPVCProtection},
		KCMArgs:        o.KCMArgs,
		SidecarArgs:    slices.Clone(o.SidecarArgs),
		Creator:        o.Creator,
		PhaseTimeout:   3 * time.Minute,
	}
}

// QuickDeletionOptions is the short mode: a tenth of the objects, one run.
func QuickDeletionOptions() DeletionOptions {
	o := DefaultDeletionOptions()
	o.Quick = true
	o.Pods, o.Claims, o.Runs = 300, 100, 1
	o.PhaseTimeout = time.Minute
	return o
}

// DeletionRun is one run's figures.
type DeletionRun struct {
	Controller string `json:"controller"`
	Run        int    `json:"run"`
	// Duration is from the first delete call until every claim was gone.
	Duration time.Duration `json:"duration"`
	// PodLists and PodListBytes are the pod LIST requests of the
	// controller's client during the deletions and the bytes the API
	// server sent for all pod LISTs (kube-apiserver's
	// apiserver_response_sizes).
	PodLists     int     `json:"podLists"`
	PodListBytes float64 `json:"podListBytes"`
	// PodWatches are the short pod watches of the controller's client.
	PodWatches int `json:"podWatches"`
	// ClaimWrites are the controller client's writes to claims.
	ClaimWrites int `json:"claimWrites"`
	Left        int `json:"left"`
	// Quiet are the times of the single deletions in the quiet namespace,
	// from the delete call until the claim left the API.
	Quiet    []time.Duration `json:"quiet,omitempty"`
	Problems []string        `json:"problems,omitempty"`
}

// DeletionReport is the whole PVC protection benchmark.
type DeletionReport struct {
	Options     DeletionOptions `json:"-"`
	Environment Environment     `json:"environment"`
	Invocation  Invocation      `json:"invocation"`
	Started     time.Time       `json:"started"`
	Duration    time.Duration   `json:"duration"`
	Runs        []*DeletionRun  `json:"runs"`
}

// RunClaimDeletion runs every controller Options.Runs times, interleaved,
// each run on a fresh stack.
func RunClaimDeletion(ctx context.Context, opts DeletionOptions, how Invocation) (*DeletionReport, error) {
	if opts.Claims <= 0 || opts.Runs <= 0 || len(opts.Controllers) == 0 {
		return nil, errors.New("options need Claims, Runs and Controllers")
	}
	rep := &DeletionReport{Options: opts, Invocation: how, Started: time.Now()}
	env, err := gatherEnvironment(ctx, Options{BinDir: opts.BinDir, ControlPlaneDir: opts.ControlPlaneDir})
	if err != nil {
		return nil, err
	}
	rep.Environment = env
	for run := 1; run <= opts.Runs; run++ {
		for _, c := range opts.Controllers {
			deletionProgress(opts, "[%s] %s, run %d of %d", time.Since(rep.Started).Round(time.Second), c.Name, run, opts.Runs)
			res, err := runDeletion(ctx, opts, c, run)
			if err != nil {
				return nil, fmt.Errorf("%s, run %d: %w", c.Name, run, err)
			}
			rep.Runs = append(rep.Runs, res)
		}
	}
	rep.Duration = time.Since(rep.Started)
	return rep, nil
}

func deletionProgress(opts DeletionOptions, format string, args ...any) {
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, format+"\n", args...)
	}
}

// runDeletion is one run. An error means nothing could be measured; a run
// that went wrong on the way has Problems.
func runDeletion(ctx context.Context, opts DeletionOptions, c DeletionController, run int) (_ *DeletionRun, err error) {
	res := &DeletionRun{Controller: c.Name, Run: run}
	workDir, err := os.MkdirTemp(opts.WorkRoot, "csi-bench-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil || len(res.Problems) > 0 || opts.KeepWorkDirs {
			deletionProgress(opts, "  work folder kept: %s", workDir)
		} else {
			_ = os.RemoveAll(workDir)
		}
	}()
	s, err := framework.StartStack(ctx, framework.StackOptions{
		BinDir:  opts.BinDir,
		WorkDir: workDir,
		Cluster: framework.ClusterOptions{
			BinDir:         opts.ControlPlaneDir,
			AuditLog:       true,
			KCMArgs:        opts.KCMArgs,
			KCMControllers: c.KCMControllers,
		},
		Sidecar: framework.SidecarOptions{
			Verbosity:          2,
			ExtraArgs:          slices.Concat(opts.SidecarArgs, c.SidecarArgs),
			ExtraRBACManifests: []string{framework.VolumeProtectionRBACManifest},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("start the stack: %w", err)
	}
	defer func() {
		if stopErr := s.Stop(); stopErr != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("stack did not stop cleanly: %v", stopErr))
		}
	}()
	if err := measureDeletion(ctx, opts, c, s, res); err != nil {
		res.Problems = append(res.Problems, err.Error())
		deletionProgress(opts, "  problem: %v", err)
	}
	if err := measureQuietDeletions(ctx, opts, s, res); err != nil {
		res.Problems = append(res.Problems, err.Error())
		deletionProgress(opts, "  problem: %v", err)
	}
	return res, nil
}

const (
	// deletionNamespace holds the pods and the claims.
	deletionNamespace = "bench"
	// quietNamespace holds the few pods and the claims deleted one by one.
	quietNamespace = "quiet"
	// deletionClass is a WaitForFirstConsumer class of the driver: its
	// claims stay unprovisioned, so deleting them involves the protection
	// controllers only.
	deletionClass = "bench-wffc"
)

func measureDeletion(ctx context.Context, opts DeletionOptions, c DeletionController, s *framework.Stack, res *DeletionRun) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client, err := newBenchClient(s.Cluster().RESTConfig(), opts.Creator)
	if err != nil {
		return err
	}
	if err := createDeletionWorkload(ctx, opts, client, s.DriverName()); err != nil {
		return err
	}
	names := claimNames("unused", opts.Claims)
	gone, err := watchClaimsGone(ctx, client)
	if err != nil {
		return err
	}
	// Let both controllers' pod informers take in the pods before the
	// clock starts.
	time.Sleep(drain)

	before, err := podListBytes(ctx, s.Client())
	if err != nil {
		return err
	}
	start := time.Now()
	del := forEach(ctx, names, opts.Creator.Workers, func(ctx context.Context, name string) error {
		err := client.CoreV1().PersistentVolumeClaims(deletionNamespace).Delete(ctx, name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}, func(string, time.Time) {}, nil)
	if del.failed > 0 {
		return fmt.Errorf("%d deletions failed, first: %w", del.failed, del.firstErr)
	}
	waitErr := s.WaitFor(ctx, opts.PhaseTimeout, "every claim to be gone", func(context.Context) (bool, error) {
		n := gone.count()
		res.Left = opts.Claims - n
		return n == opts.Claims, fmt.Errorf("%d of %d gone", n, opts.Claims)
	})
	end := gone.last()
	if waitErr != nil {
		end = time.Now()
	}
	res.Duration = end.Sub(start)
	time.Sleep(drain)
	after, err := podListBytes(ctx, s.Client())
	if err != nil {
		return err
	}
	res.PodListBytes = after - before

	records, err := readAudit(s.Cluster().AuditLogPath())
	if err != nil {
		return err
	}
	w := window{From: start, To: end.Add(drain)}
	for i := range records {
		r := &records[i]
		if !w.contains(r.Received.Time) || clientOf(r, s.SidecarUser()) != c.Client || r.ObjectRef == nil {
			continue
		}
		switch {
		case r.ObjectRef.Resource == "pods" && r.Verb == "list":
			res.PodLists++
		case r.ObjectRef.Resource == "pods" && r.Verb == "watch":
			res.PodWatches++
		case r.ObjectRef.Resource == "persistentvolumeclaims" && isWrite(r.Verb):
			res.ClaimWrites++
		}
	}
	return waitErr
}

// createDeletionWorkload creates the namespace, the class, the scheduled
// pods and the unused claims, as fast as the API server answers.
func createDeletionWorkload(ctx context.Context, opts DeletionOptions, client kubernetes.Interface, driver string) error {
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: deletionNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	_, err = client.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: deletionClass}, Provisioner: driver, VolumeBindingMode: &wffc,
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	pods := forEach(ctx, claimNames("app", opts.Pods), opts.Creator.Workers, func(ctx context.Context, name string) error {
		_, err := client.CoreV1().Pods(deletionNamespace).Create(ctx, scheduledPod(name), metav1.CreateOptions{})
		return err
	}, func(string, time.Time) {}, nil)
	if pods.failed > 0 {
		return fmt.Errorf("%d pods not created, first: %w", pods.failed, pods.firstErr)
	}
	claims := forEach(ctx, claimNames("unused", opts.Claims), opts.Creator.Workers, func(ctx context.Context, name string) error {
		pvc := newClaim(name)
		pvc.Namespace = deletionNamespace
		class := deletionClass
		pvc.Spec.StorageClassName = &class
		_, err := client.CoreV1().PersistentVolumeClaims(deletionNamespace).Create(ctx, pvc, metav1.CreateOptions{})
		return err
	}, func(string, time.Time) {}, nil)
	if claims.failed > 0 {
		return fmt.Errorf("%d claims not created, first: %w", claims.failed, claims.firstErr)
	}
	return nil
}

// scheduledPod is a pod bound to a node, as the scheduler leaves it, using
// a claim of its own (which need not exist for the controllers' purpose).
func scheduledPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: deletionNamespace},
		Spec: corev1.PodSpec{
			NodeName:   "node-1",
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name + "-data"},
			}}},
		},
	}
}

// goneWatch counts the claims that left the API, and when the last did.
type goneWatch struct {
	mu     sync.Mutex
	n      int
	lastAt time.Time
}

func (g *goneWatch) count() int { g.mu.Lock(); defer g.mu.Unlock(); return g.n }

func (g *goneWatch) last() time.Time { g.mu.Lock(); defer g.mu.Unlock(); return g.lastAt }

func watchClaimsGone(ctx context.Context, client kubernetes.Interface) (*goneWatch, error) {
	return watchNamespaceClaimsGone(ctx, client, deletionNamespace, nil)
}

// watchNamespaceClaimsGone counts the claims of namespace that leave the
// API; onGone, if set, is told the name of each.
func watchNamespaceClaimsGone(ctx context.Context, client kubernetes.Interface, namespace string, onGone func(name string)) (*goneWatch, error) {
	g := &goneWatch{}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
	inf := factory.Core().V1().PersistentVolumeClaims().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		g.mu.Lock()
		g.n++
		g.lastAt = time.Now()
		g.mu.Unlock()
		if onGone == nil {
			return
		}
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if claim, ok := obj.(*corev1.PersistentVolumeClaim); ok {
			onGone(claim.Name)
		}
	}}); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("watch of claims did not sync: %w", context.Cause(ctx))
	}
	return g, nil
}
