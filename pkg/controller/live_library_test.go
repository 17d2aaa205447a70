package controller

import (
	"context"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
	libmetrics "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller/metrics"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// liveLibrary is the provisioning library v10 driving the provisioner as
// cmd/csi-provisioner wires them: one set of informers on a fake API server
// with real write semantics (resourceVersions, conflicts) feeds both, so
// the provisioner's listers see what the library sees.
type liveLibrary struct {
	*env
	server    *fake.Clientset
	clock     *clocktesting.FakeClock
	factory   informers.SharedInformerFactory
	library   *libcontroller.ProvisionController
	qualifier *qualifierSpy
	// registry holds the library's metrics, with subsystem "test".
	registry metrics.KubeRegistry
}

// newLiveLibrary makes the library and the provisioner on objs; start runs
// them. The library retries failures after 10ms, so that a retry the
// provisioner should have prevented shows at once.
func newLiveLibrary(t *testing.T, objs []runtime.Object, mutate ...func(*Options)) *liveLibrary {
	t.Helper()
	l := &liveLibrary{
		server: testutil.NewClientset(objs...),
		clock:  clocktesting.NewFakeClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)),
	}
	l.factory = informers.NewSharedInformerFactory(l.server, 0)
	claims := l.factory.Core().V1().PersistentVolumeClaims()
	volumes := l.factory.Core().V1().PersistentVolumes()
	classes := l.factory.Storage().V1().StorageClasses()
	nodes := l.factory.Core().V1().Nodes()
	live := func(o *Options) {
		o.Client = l.server
		o.ClaimLister = claims.Lister()
		o.VolumeLister = volumes.Lister()
		o.ClassLister = classes.Lister()
		o.NodeLister = nodes.Lister()
		o.CSINodeLister = l.factory.Storage().V1().CSINodes().Lister()
		o.VolumeAttachmentLister = l.factory.Storage().V1().VolumeAttachments().Lister()
		o.Clock = l.clock
	}
	l.env = newEnv(t, envObjects{}, append([]func(*Options){live}, mutate...)...)
	l.qualifier = &qualifierSpy{Provisioner: l.prov, answers: map[string]bool{}}

	libMetrics := libmetrics.New("test")
	l.registry = metrics.NewKubeRegistry()
	l.registry.RawMustRegister(libMetrics.PersistentVolumeClaimProvisionTotal, libMetrics.PersistentVolumeClaimProvisionFailedTotal)
	logger, _ := ktesting.NewTestContext(t)
	l.library = libcontroller.NewProvisionController(logger, l.prov.Library().Client(l.server, nil), testDriver, l.qualifier,
		libcontroller.LeaderElection(false),
		libcontroller.MetricsPort(0),
		libcontroller.FailedProvisionThreshold(0),
		libcontroller.RateLimiter(workqueue.NewTypedItemExponentialFailureRateLimiter[any](10*time.Millisecond, 10*time.Millisecond)),
		libcontroller.Threadiness(1),
		libcontroller.ClaimsInformer(l.prov.Library().ClaimsInformer(claims.Informer())),
		libcontroller.VolumesInformer(volumes.Informer()),
		libcontroller.ClassesInformer(classes.Informer()),
		libcontroller.NodesLister(nodes.Lister()),
		libcontroller.MetricsInstance(libMetrics),
	)
	if _, err := classes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    l.prov.OnClassChange,
		UpdateFunc: func(_, obj any) { l.prov.OnClassChange(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	return l
}

// start runs the informers and the library until the test ends.
func (l *liveLibrary) start(t *testing.T) {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	l.factory.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		l.factory.Shutdown()
	})
	for typ, synced := range l.factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			t.Fatalf("informer of %v did not sync", typ)
		}
	}
	testutil.RunUntilCleanup(t, ctx, l.library.Run)
}

// creates is the number of CreateVolume calls so far.
func (l *liveLibrary) creates() int {
	l.csi.mu.Lock()
	defer l.csi.mu.Unlock()
	return len(l.csi.creates)
}

func (l *liveLibrary) claim(t *testing.T, name string) *v1.PersistentVolumeClaim {
	t.Helper()
	claim, err := l.server.CoreV1().PersistentVolumeClaims(testNamespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return claim
}

// qualifierSpy records the provisioner's ShouldProvision answers by the
// claim's resourceVersion, so a test knows the library looked at a version.
type qualifierSpy struct {
	*Provisioner
	mu      sync.Mutex
	answers map[string]bool
}

func (q *qualifierSpy) ShouldProvision(ctx context.Context, claim *v1.PersistentVolumeClaim) bool {
	should := q.Provisioner.ShouldProvision(ctx, claim)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.answers[claim.ResourceVersion] = should
	return should
}

func (q *qualifierSpy) answer(resourceVersion string) (should, asked bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	should, asked = q.answers[resourceVersion]
	return should, asked
}
