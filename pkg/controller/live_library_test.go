package controller

import (
	"context"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// liveLibrary is the provisioning library v10 driving the provisioner as
// cmd/csi-provisioner wires them: one set of informers on a fake API server
// with real write semantics (resourceVersions, conflicts) feeds both, so
// the provisioner's listers see what the library sees.
type liveLibrary struct {
	*env
	// api is that fake API server and its informers, of which the
	// provisioner is given the client and listers; its registry holds the
	// library's metrics, with subsystem "test".
	api       *testutil.Env
	clock     *clocktesting.FakeClock
	library   *libcontroller.ProvisionController
	qualifier *qualifierSpy
}

// newLiveLibrary makes the library and the provisioner on objs; start runs
// them. The library retries failures after 10ms, so that a retry the
// provisioner should have prevented shows at once.
func newLiveLibrary(t *testing.T, objs []runtime.Object, mutate ...func(*Options)) *liveLibrary {
	t.Helper()
	l := &liveLibrary{
		api:   testutil.NewEnv(t, testutil.EnvOptions{Objects: objs}),
		clock: clocktesting.NewFakeClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)),
	}
	informers := l.api.Informers
	classes := informers.Storage().V1().StorageClasses()
	live := func(o *Options) {
		o.Client = l.api.Client
		o.ClaimLister = informers.Core().V1().PersistentVolumeClaims().Lister()
		o.VolumeLister = informers.Core().V1().PersistentVolumes().Lister()
		o.ClassLister = classes.Lister()
		o.NodeLister = informers.Core().V1().Nodes().Lister()
		o.CSINodeLister = informers.Storage().V1().CSINodes().Lister()
		o.VolumeAttachmentLister = informers.Storage().V1().VolumeAttachments().Lister()
		o.Clock = l.clock
	}
	l.env = newEnv(t, envObjects{}, append([]func(*Options){live}, mutate...)...)
	l.qualifier = &qualifierSpy{Provisioner: l.prov, answers: map[string]bool{}}
	l.library = l.api.NewLibrary(testutil.LibraryOptions{Driver: testDriver, Provisioner: l.qualifier, Adapter: l.prov.Library()})
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
	l.api.StartInformers(t)
	l.api.Run(t, l.library.Run)
}

// creates is the number of CreateVolume calls so far.
func (l *liveLibrary) creates() int {
	l.csi.mu.Lock()
	defer l.csi.mu.Unlock()
	return len(l.csi.creates)
}

func (l *liveLibrary) claim(t *testing.T, name string) *v1.PersistentVolumeClaim {
	t.Helper()
	return testutil.Get(t, l.api.Client.CoreV1().PersistentVolumeClaims(testNamespace), name)
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
