package cmdutil

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
)

// eventReasons are what a claim gets from the sidecar in the soak: one
// event of each.
var eventReasons = []string{"Provisioning", "DeletionHeldForProvisioning", "ProvisioningSucceeded", "DeletionReleasedByProvisioning"}

// BenchmarkEventRecorderMemory measures the heap the sidecar's event
// recorder keeps, after a forced GC, once it has sent the events of more
// and more claims. client-go keeps, per recorder, least-recently-used
// caches of 4,096 entries for its spam filter, aggregation and repeat
// counting, so retained-MiB levels off once the caches are full instead of
// growing with the claims: the leader's heap in a long soak grows the same
// way until then. The "unsent" case is a sink that does not answer, as
// under client throttling: the 1,000 events its queue holds are kept, the
// rest dropped.
func BenchmarkEventRecorderMemory(b *testing.B) {
	for _, claims := range []int{1000, 4000, 16000, 64000} {
		b.Run(fmt.Sprintf("sent/claims=%d", claims), func(b *testing.B) {
			benchmarkRecorderMemory(b, claims, false)
		})
	}
	// A full queue drops each event with an error line.
	klog.SetLogger(logr.Discard())
	defer klog.ClearLogger()
	b.Run("unsent/claims=4000", func(b *testing.B) { benchmarkRecorderMemory(b, 4000, true) })
}

func benchmarkRecorderMemory(b *testing.B, claims int, stuck bool) {
	var retained float64
	for b.Loop() {
		retained += float64(recorderRetains(b, claims, stuck))
	}
	b.ReportMetric(retained/float64(b.N)/(1<<20), "retained-MiB")
}

// recorderRetains records the events of claims claims through a started
// recorder and returns the live heap it added, read while it still runs.
func recorderRetains(b *testing.B, claims int, stuck bool) uint64 {
	b.Helper()
	var written atomic.Int64
	// wrote wakes waitWritten after a write; a wake-up already pending
	// will do.
	wrote := make(chan struct{}, 1)
	release := make(chan struct{})
	client := fake.NewClientset()
	// Answer event writes without the object tracker, which would keep
	// every event itself.
	client.PrependReactor("*", "events", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		if stuck {
			<-release
		}
		written.Add(1)
		select {
		case wrote <- struct{}{}:
		default:
		}
		ev := &v1.Event{ObjectMeta: metav1.ObjectMeta{Name: "written", Namespace: "default", ResourceVersion: "1"}}
		if c, ok := a.(k8stesting.CreateAction); ok {
			ev = c.GetObject().(*v1.Event).DeepCopy()
			ev.ResourceVersion = "1"
		}
		return true, ev, nil
	})
	before := liveHeap()
	// The broadcaster logs each event with the context's logger.
	r := NewEventRecorder(klog.NewContext(context.Background(), logr.Discard()), client, "bench")
	r.Start()
	defer r.Stop()
	defer close(release)
	claim := &v1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{Kind: "PersistentVolumeClaim", APIVersion: "v1"}}
	claim.Namespace = "default"
	recorded := int64(0)
	for i := range claims {
		claim.Name = fmt.Sprintf("claim-%d", i)
		claim.UID = types.UID(fmt.Sprintf("uid-%d", i))
		for _, reason := range eventReasons {
			r.Eventf(claim, v1.EventTypeNormal, reason, "%s for claim %q", reason, claim.Namespace+"/"+claim.Name)
			recorded++
		}
		// Let the sender keep up, as it does when not throttled, so that
		// every event reaches the caches instead of a full queue.
		if !stuck && i%64 == 63 {
			waitWritten(b, &written, wrote, recorded)
			// The fake keeps every call it was asked.
			client.ClearActions()
		}
	}
	if !stuck {
		waitWritten(b, &written, wrote, recorded)
		client.ClearActions()
	}
	after := liveHeap()
	if after < before {
		return 0
	}
	return after - before
}

func waitWritten(b *testing.B, written *atomic.Int64, wrote <-chan struct{}, want int64) {
	timeout := time.After(time.Minute)
	for written.Load() < want {
		select {
		case <-wrote:
		case <-timeout:
			b.Fatalf("%d of %d events written after a minute", written.Load(), want)
		}
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
