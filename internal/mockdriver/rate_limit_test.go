package mockdriver

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	testclock "k8s.io/utils/clock/testing"
)

// A throttled backend lets a burst in, then a call per 1/Limit seconds, and
// answers the others at once with ResourceExhausted, doing nothing.
func TestAPIRateLimitRefusesCallsPastTheQuota(t *testing.T) {
	clock := testclock.NewFakePassiveClock(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	td := startDriver(t, Config{Faults: Faults{RateLimit: APIRateLimit{Limit: 2, Burst: 2, Now: clock.Now}}})

	vol := mustCreate(t, td, createReq("pvc-1", gib))
	mustCreate(t, td, createReq("pvc-2", gib))
	_, err := td.controller.CreateVolume(callCtx(t), createReq("pvc-3", gib))
	wantCode(t, err, codes.ResourceExhausted)
	_, err = td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: vol.GetVolumeId()})
	wantCode(t, err, codes.ResourceExhausted)
	if n := len(td.Volumes()); n != 2 {
		t.Fatalf("%d volumes after two throttled calls, want the 2 admitted", n)
	}
	if n := td.Throttled(); n != 2 {
		t.Errorf("Throttled() = %d, want 2", n)
	}

	clock.SetTime(clock.Now().Add(500 * time.Millisecond))
	mustCreate(t, td, createReq("pvc-3", gib))
	_, err = td.controller.CreateVolume(callCtx(t), createReq("pvc-4", gib))
	wantCode(t, err, codes.ResourceExhausted)
}

func TestAPIRateLimitCodeAndBurstDefaults(t *testing.T) {
	clock := testclock.NewFakePassiveClock(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	td := startDriver(t, Config{Faults: Faults{RateLimit: APIRateLimit{Limit: 0.5, Code: codes.Unavailable, Now: clock.Now}}})
	mustCreate(t, td, createReq("pvc-1", gib))
	_, err := td.controller.CreateVolume(callCtx(t), createReq("pvc-2", gib))
	wantCode(t, err, codes.Unavailable)
}

func TestWithoutAnAPIRateLimitNothingIsThrottled(t *testing.T) {
	td := startDriver(t, Config{})
	for i := range 20 {
		mustCreate(t, td, createReq(fmt.Sprintf("pvc-%d", i), gib))
	}
	if n := td.Throttled(); n != 0 {
		t.Errorf("Throttled() = %d", n)
	}
}

func TestInvalidAPIRateLimitsAreRefused(t *testing.T) {
	for _, l := range []APIRateLimit{{Limit: -1}, {Limit: math.NaN()}, {Limit: math.Inf(1)}, {Limit: 1, Burst: -1}} {
		if _, err := New(Config{Faults: Faults{RateLimit: l}}); err == nil {
			t.Errorf("%+v accepted", l)
		}
	}
}
