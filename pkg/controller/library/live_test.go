package library

import (
	"context"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// liveLibrary is library v10 run on a fake API server with real write
// semantics (resourceVersions, conflicts, finalizers), driving a
// provisioner whose answers the test gives. Wired through an Adapter as
// cmd/csi-provisioner wires it, it shows what the provisioner sees; wired
// plain (liveOptions.plain), it shows what library v10 does by itself,
// which the Adapter bends. Either way, a library bump that changes a
// behaviour the project relies on fails here. The env's registry holds the
// library's metrics, with subsystem "test".
type liveLibrary struct {
	*testutil.Env
	adapter     *Adapter
	provisioner *stubProvisioner
	library     *libcontroller.ProvisionController
}

// liveOptions are how a test sets the library up.
type liveOptions struct {
	// plain gives the library the server's client and the informers as
	// they are, without the Adapter.
	plain bool
	// addFinalizer is the library's AddFinalizer option (the gate
	// HonorPVReclaimPolicy, on by default).
	addFinalizer bool
	// backOff is the delay of the library's retries; 10ms if zero.
	backOff time.Duration
}

func newLiveLibrary(t *testing.T, objs []runtime.Object, opts liveOptions) *liveLibrary {
	t.Helper()
	l := &liveLibrary{Env: testutil.NewEnv(t, testutil.EnvOptions{Objects: objs})}
	claims := l.Informers.Core().V1().PersistentVolumeClaims()
	l.adapter = New(Options{Client: l.Client, Claims: claims.Lister(), Nodes: l.Informers.Core().V1().Nodes().Lister()})
	l.provisioner = &stubProvisioner{}
	libOpts := testutil.LibraryOptions{Driver: testDriver, Provisioner: l.provisioner, BackOff: opts.backOff, AddFinalizer: opts.addFinalizer}
	if !opts.plain {
		l.provisioner.guard = l.adapter
		libOpts.Adapter = l.adapter
	}
	l.library = l.NewLibrary(libOpts)
	return l
}

// start runs the informers and the library until the test ends.
func (l *liveLibrary) start(t *testing.T) {
	t.Helper()
	l.StartInformers(t)
	l.Run(t, l.library.Run)
}

func (l *liveLibrary) claim(t *testing.T, name string) *v1.PersistentVolumeClaim {
	t.Helper()
	return testutil.Get(t, l.Client.CoreV1().PersistentVolumeClaims(testNamespace), name)
}

// events are the events on the server, oldest first.
func (l *liveLibrary) events(t *testing.T) []v1.Event {
	t.Helper()
	list, err := l.Client.CoreV1().Events(metav1.NamespaceAll).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// event waits for the event of this reason and returns it.
func (l *liveLibrary) event(t *testing.T, reason string) v1.Event {
	t.Helper()
	var found v1.Event
	testutil.Eventually(t, 10*time.Second, "a "+reason+" event", func() bool {
		for _, ev := range l.events(t) {
			if ev.Reason == reason {
				found = ev
				return true
			}
		}
		return false
	})
	return found
}

// stubProvisioner answers the library as the test says; its defaults
// provision and delete every volume. It is a Qualifier and a
// DeletionGuard, as the project's provisioner is.
type stubProvisioner struct {
	mu sync.Mutex
	// provisioned are the options of each Provision call; deleted the
	// PVs of each Delete call.
	provisioned []libcontroller.ProvisionOptions
	deleted     []string
	// provision and del, if set, answer Provision and Delete.
	provision func(ctx context.Context, o libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error)
	del       func(ctx context.Context, pv *v1.PersistentVolume) error
	// refuseClaims and refuseVolumes are the answers false of
	// ShouldProvision and ShouldDelete.
	refuseClaims, refuseVolumes bool
	// guard, if set, answers ShouldDelete as the provisioner's delete
	// guard does: a volume already deleted is not deleted again.
	guard *Adapter
}

var (
	_ libcontroller.Qualifier     = &stubProvisioner{}
	_ libcontroller.DeletionGuard = &stubProvisioner{}
)

func (s *stubProvisioner) Provision(ctx context.Context, o libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
	s.mu.Lock()
	s.provisioned = append(s.provisioned, o)
	answer := s.provision
	s.mu.Unlock()
	if answer != nil {
		return answer(ctx, o)
	}
	return provisionedVolume(o), libcontroller.ProvisioningFinished, nil
}

func (s *stubProvisioner) Delete(ctx context.Context, pv *v1.PersistentVolume) error {
	s.mu.Lock()
	s.deleted = append(s.deleted, pv.Name)
	answer := s.del
	s.mu.Unlock()
	if answer != nil {
		return answer(ctx, pv)
	}
	return nil
}

func (s *stubProvisioner) ShouldProvision(context.Context, *v1.PersistentVolumeClaim) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.refuseClaims
}

func (s *stubProvisioner) ShouldDelete(ctx context.Context, pv *v1.PersistentVolume) bool {
	s.mu.Lock()
	refuse := s.refuseVolumes
	s.mu.Unlock()
	return !refuse && (s.guard == nil || !s.guard.AlreadyDeleted(ctx, pv))
}

func (s *stubProvisioner) set(change func(*stubProvisioner)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	change(s)
}

func (s *stubProvisioner) provisions() []libcontroller.ProvisionOptions {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]libcontroller.ProvisionOptions(nil), s.provisioned...)
}

func (s *stubProvisioner) deletes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.deleted...)
}

// provisionedVolume is the PV a provisioner makes for o.
func provisionedVolume(o libcontroller.ProvisionOptions) *v1.PersistentVolume {
	pv := releasedVolume(o.PVName)
	pv.UID = ""
	pv.Annotations = nil
	pv.Spec.ClaimRef = nil
	pv.Status = v1.PersistentVolumeStatus{}
	return pv
}
