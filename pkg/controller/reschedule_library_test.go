package controller

import (
	"sync"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// The library v10 with provisioning protection: the claim goes back to
// the scheduler after one CreateVolume, as upstream.
func TestLibraryReschedulesAfterOneCreateVolume(t *testing.T) {
	claim, class, node, csiNode := scheduledObjects()
	l := newLiveLibrary(t, []runtime.Object{claim, class, node, csiNode}, protectionOn, topologyDriver)
	// A driver answers after the informer saw the finalizer write (a watch
	// event takes milliseconds, a CreateVolume more): the library caches
	// its copy after the informer has stored that write.
	seen := make(chan struct{})
	if _, err := l.api.Informers.Core().V1().PersistentVolumeClaims().Informer().AddEventHandler(finalizerSeen(seen)); err != nil {
		t.Fatal(err)
	}
	l.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		<-seen
		return nil, status.Error(codes.ResourceExhausted, "no space on node-1")
	}
	l.start(t)
	testutil.Eventually(t, 10*time.Second, "the claim sent back to the scheduler", func() bool {
		_, selected := l.claim(t, "db").Annotations[annSelectedNode]
		return !selected
	})
	if n := l.creates(); n != 1 {
		t.Fatalf("%d CreateVolume calls before the claim went back to the scheduler, want 1", n)
	}
	if live := l.claim(t, "db"); !finalizer.Has(live, provisionstate.ProvisioningProtectionFinalizer) {
		t.Fatalf("finalizers %v, want provisioning protection's", live.Finalizers)
	}
}

// finalizerSeen closes seen once the informer has stored a claim with the
// provisioning-protection finalizer (it stores before it notifies).
func finalizerSeen(seen chan struct{}) cache.ResourceEventHandler {
	var once sync.Once
	return cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, obj any) {
		if claim, ok := obj.(*v1.PersistentVolumeClaim); ok && finalizer.Has(claim, provisionstate.ProvisioningProtectionFinalizer) {
			once.Do(func() { close(seen) })
		}
	}}
}
