package claimdeletion

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

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

func measureDeletion(ctx context.Context, opts Options, c Controller, s *framework.Stack, res *RunResult) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client, err := bench.NewClient(s.Cluster().RESTConfig(), opts.Creator)
	if err != nil {
		return err
	}
	if err := createDeletionWorkload(ctx, opts, client, s.DriverName()); err != nil {
		return err
	}
	names := bench.ClaimNames("unused", opts.Claims)
	gone, err := watchClaimsGone(ctx, client)
	if err != nil {
		return err
	}
	// Let both controllers' pod informers take in the pods before the
	// clock starts.
	time.Sleep(bench.Drain)

	before, err := podListBytes(ctx, s.Client())
	if err != nil {
		return err
	}
	start := time.Now()
	del := bench.DeleteClaims(ctx, client, deletionNamespace, names, opts.Creator.Workers, nil)
	if del.Failed > 0 {
		return fmt.Errorf("%d deletions failed, first: %w", del.Failed, del.FirstErr)
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
	time.Sleep(bench.Drain)
	after, err := podListBytes(ctx, s.Client())
	if err != nil {
		return err
	}
	res.PodListBytes = after - before

	records, err := measure.ReadAudit(s.Cluster().AuditLogPath())
	if err != nil {
		return err
	}
	w := measure.Window{From: start, To: end.Add(bench.Drain)}
	for i := range records {
		r := &records[i]
		if !w.Contains(r.RequestReceived) || measure.ClientOf(r, s.SidecarUser()) != c.Client || r.ObjectRef == nil {
			continue
		}
		switch {
		case r.ObjectRef.Resource == "pods" && r.Verb == "list":
			res.PodLists++
		case r.ObjectRef.Resource == "pods" && r.Verb == "watch":
			res.PodWatches++
		case r.ObjectRef.Resource == "persistentvolumeclaims" && measure.IsWrite(r.Verb):
			res.ClaimWrites++
		}
	}
	return waitErr
}

// createDeletionWorkload creates the namespace, the class, the scheduled
// pods and the unused claims, as fast as the API server answers.
func createDeletionWorkload(ctx context.Context, opts Options, client kubernetes.Interface, driver string) error {
	if err := bench.EnsureNamespace(ctx, client, deletionNamespace); err != nil {
		return err
	}
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	_, err := client.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: deletionClass}, Provisioner: driver, VolumeBindingMode: &wffc,
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	pods := bench.ForEach(ctx, bench.ClaimNames("app", opts.Pods), opts.Creator.Workers, func(ctx context.Context, name string) error {
		_, err := client.CoreV1().Pods(deletionNamespace).Create(ctx, scheduledPod(name, deletionNamespace), metav1.CreateOptions{})
		return err
	}, nil, nil)
	if pods.Failed > 0 {
		return fmt.Errorf("%d pods not created, first: %w", pods.Failed, pods.FirstErr)
	}
	claims := bench.CreateClaims(ctx, client, bench.ClaimNames("unused", opts.Claims), opts.Creator.Workers, func(name string) *corev1.PersistentVolumeClaim {
		return unusedClaim(name, deletionNamespace)
	}, nil, nil)
	if claims.Failed > 0 {
		return fmt.Errorf("%d claims not created, first: %w", claims.Failed, claims.FirstErr)
	}
	return nil
}

// scheduledPod is a pod bound to a node, as the scheduler leaves it, using
// a claim of its own (which need not exist for the controllers' purpose).
func scheduledPod(name, namespace string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PodSpec{
			NodeName:   "node-1",
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name + "-data"},
			}}},
		},
	}
}

// unusedClaim is a claim of the WaitForFirstConsumer class, which no pod
// uses: it is never provisioned.
func unusedClaim(name, namespace string) *corev1.PersistentVolumeClaim {
	pvc := bench.NewClaim(name)
	pvc.Namespace = namespace
	class := deletionClass
	pvc.Spec.StorageClassName = &class
	return pvc
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
