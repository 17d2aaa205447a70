package framework

import (
	"slices"
	"strings"
	"testing"
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
