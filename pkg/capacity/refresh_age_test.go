package capacity

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	storagev1 "k8s.io/api/storage/v1"
	testclock "k8s.io/utils/clock/testing"
)

const metricOldestRefreshAge = "csi_provisioner_capacity_oldest_refresh_age_seconds"

// The oldest refresh age grows from each object's last refresh until the
// next one, which sets it back; an object whose GetCapacity keeps failing
// ages from when it was first queued.
func TestOldestRefreshAge(t *testing.T) {
	f := newFixture(t, fixtureOptions{objects: twoNodesAndClasses()})
	clock := testclock.NewFakePassiveClock(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	f.ctrl.refreshes.now = clock.Now
	failing := &failingCSI{CapacityClient: f.csi, segment: "n2"}
	f.ctrl.opts.CSI = failing
	age := func() float64 { return f.metric(metricOldestRefreshAge) }
	if got := age(); got != 0 {
		t.Fatalf("age %v before the first sync, want 0", got)
	}
	f.start()
	f.waitFor("two objects", func(objs []storagev1.CSIStorageCapacity) bool { return len(objs) == 2 })
	// The syncs that made them have ended, refresh included: an object is
	// in the API before its sync notes the refresh.
	for _, n := range []string{"n1", "n2"} {
		f.syncs.Wait(t, f.Timeout, lateKey(n), 1)
	}
	// n2 fails from now on, before the clock moves: a sync of n2 still
	// queued from the start then cannot refresh it later than now.
	failing.fail(true)
	clock.SetTime(clock.Now().Add(10 * time.Minute))
	if got := age(); got != 600 {
		t.Fatalf("age %v ten minutes after the refresh, want 600", got)
	}

	// A refresh brings n1 back to 0; n2 keeps aging.
	f.ctrl.RefreshClass("late")
	f.Eventually(t, "a failed GetCapacity of n2", func() bool { return failing.failures() > 0 })
	if got := age(); got != 600 {
		t.Fatalf("age %v with n2's refresh failing, want n2's 600", got)
	}
	failing.fail(false)
	f.ctrl.RefreshClass("late")
	f.Eventually(t, "both objects refreshed", func() bool { return age() == 0 })
}

// failingCSI fails GetCapacity for one segment while told to.
type failingCSI struct {
	CapacityClient
	segment string

	mu      sync.Mutex
	n       int
	failing bool
}

func (f *failingCSI) GetCapacity(ctx context.Context, req *csi.GetCapacityRequest, opts ...grpc.CallOption) (*csi.GetCapacityResponse, error) {
	f.mu.Lock()
	fail := f.failing && req.GetAccessibleTopology().GetSegments()[topologyKey1] == f.segment
	if fail {
		f.n++
	}
	f.mu.Unlock()
	if fail {
		return nil, errors.New("unavailable")
	}
	return f.CapacityClient.GetCapacity(ctx, req, opts...)
}

func (f *failingCSI) failures() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

func (f *failingCSI) fail(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing = on
}
