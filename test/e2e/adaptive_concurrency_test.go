//go:build e2e

package e2e

import (
	"fmt"
	"testing"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// A backend that throttles its API (the mock driver past 2 storage calls a
// second) answers a burst of claims with ResourceExhausted. With
// --adaptive-concurrency the sidecar halves its calls in flight on those
// answers and paces their starts, and every claim is still provisioned.
func TestAdaptiveConcurrencyBacksOffAThrottledBackend(t *testing.T) {
	const claims = 12
	httpFlag, metricsURL := metricsEndpoint(t)
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{APIRateLimit: 2, APIRateBurst: 2},
		Sidecar: framework.SidecarOptions{ExtraArgs: []string{
			httpFlag, "--adaptive-concurrency", "--worker-threads=8", "--retry-interval-max=2s",
		}},
	})
	createStorageClass(ctx, t, s, "mock")
	for i := range claims {
		createClaim(ctx, t, s, "default", fmt.Sprintf("throttled-%d", i), "mock")
	}
	for i := range claims {
		waitForClaimBound(ctx, t, s, "default", fmt.Sprintf("throttled-%d", i))
	}
	limit, err := framework.ScrapeMetric(ctx, metricsURL, "csi_provisioner_adaptive_concurrency_limit", nil)
	if err != nil {
		t.Fatal(err)
	}
	if limit >= 8 {
		t.Errorf("bound %v after the backend throttled a burst of %d claims, want it below the 8 workers", limit, claims)
	}
	pace, err := framework.ScrapeMetric(ctx, metricsURL, "csi_provisioner_adaptive_concurrency_pace", nil)
	if err != nil {
		t.Fatal(err)
	}
	if pace <= 0 {
		t.Errorf("starts unpaced after the backend throttled a burst of %d claims", claims)
	}
	t.Logf("bound after the burst: %v, pace: %v calls a second", limit, pace)
}
