//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Metrics of provisioning protection, as an operator scrapes them.
const (
	metricHeldClaims        = "csi_provisioner_provisioning_protection_held_claims"
	metricFinalizersAdded   = "csi_provisioner_provisioning_protection_finalizers_added_total"
	metricFinalizersRemoved = "csi_provisioner_provisioning_protection_finalizers_removed_total"
	metricAbandonedDeleted  = "csi_provisioner_provisioning_protection_abandoned_volumes_deleted_total"
)

// metricsEndpoint returns an --http-endpoint flag on a free loopback port
// and the URL of the metrics it serves.
func metricsEndpoint(t *testing.T) (flag, url string) {
	t.Helper()
	port, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	return "--http-endpoint=" + addr, "http://" + addr + "/metrics"
}

// waitForMetric waits until an unlabelled metric satisfies ok.
func waitForMetric(ctx context.Context, t *testing.T, s *framework.Stack, url, name, want string, ok func(float64) bool) {
	t.Helper()
	waitFor(ctx, t, s, fmt.Sprintf("metric %s %s", name, want), func(ctx context.Context) (bool, error) {
		v, err := framework.ScrapeMetric(ctx, url, name, nil)
		if err != nil {
			return false, err
		}
		return ok(v), fmt.Errorf("%s is %v", name, v)
	})
}

func equals(want float64) func(float64) bool  { return func(v float64) bool { return v == want } }
func atLeast(want float64) func(float64) bool { return func(v float64) bool { return v >= want } }
