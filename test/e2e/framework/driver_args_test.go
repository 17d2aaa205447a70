package framework

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
)

func TestDriverArgsThrottleTheBackendOnlyWhenAsked(t *testing.T) {
	args := DriverOptions{APIRateLimit: 10, APIRateBurst: 3, APIRateCode: "Unavailable"}.args("/tmp/s", "/tmp/f")
	for _, want := range []string{"--api-rate-limit=10", "--api-rate-burst=3", "--api-rate-code=Unavailable"} {
		if !slices.Contains(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	for _, arg := range (DriverOptions{}).args("/tmp/s", "/tmp/f") {
		if strings.HasPrefix(arg, "--api-rate") {
			t.Errorf("a driver without a rate limit gets %s", arg)
		}
	}
}

func TestDriverArgsMoveCapacityOnlyWhenAsked(t *testing.T) {
	moving := mockdriver.Moving{Share: 0.2, Amplitude: 0.3, Period: time.Minute, Seed: -7}
	args := DriverOptions{CapacityMoving: moving}.args("/tmp/s", "/tmp/f")
	for _, want := range []string{"--capacity-moving-share=0.2", "--capacity-moving-amplitude=0.3", "--capacity-moving-period=1m0s", "--capacity-moving-seed=-7"} {
		if !slices.Contains(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	for _, arg := range (DriverOptions{}).args("/tmp/s", "/tmp/f") {
		if strings.HasPrefix(arg, "--capacity-moving") {
			t.Errorf("a driver with still capacity gets %s", arg)
		}
	}
}
