//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// monitoringNamesFile lists every metric name the alerts and the dashboard
// of deploy/monitoring read; make test keeps it in step with them.
const monitoringNamesFile = "deploy/monitoring/metric-names.txt"

// Every metric deploy/monitoring's alerts and dashboard read is served by a
// running sidecar, so that renaming one fails here rather than leaving a
// panel empty or an alert silent. The sidecar runs with what those metrics
// need (leader election, capacity tracking, the orphan audit; the recycle
// bin's and the protections' families are served whatever the flags), and
// provisions and deletes volumes on a driver that fails half of its
// CreateVolume and DeleteVolume calls, until the library has counted both
// outcomes of each: its counters have no series before.
func TestMonitoringMetricsAreServed(t *testing.T) {
	names := monitoringMetricNames(t)
	httpFlag, metricsURL := metricsEndpoint(t)
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{Topology: true, NodeID: "controller", Capacity: segmentCapacity, FailureRate: 0.5},
		Sidecar: framework.SidecarOptions{
			Deferred: true, ExtraRBACManifests: []string{framework.CapacityRBACManifest},
		},
	})
	nodes := framework.NodeNames(1)
	if err := s.CreateNodes(ctx, nodes...); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartSidecar(ctx, framework.SidecarOptions{
		ExtraRBACManifests: []string{framework.CapacityRBACManifest},
		Workload:           framework.WorkloadStatefulSet,
		LeaderElection:     &framework.LeaderElectionOptions{},
		ExtraArgs: []string{
			httpFlag, "--enable-capacity", "--capacity-poll-interval=" + pollForever,
			"--orphan-audit-interval=1s", "--orphan-audit-grace-period=3s", "--retry-interval-max=1s",
		},
	}); err != nil {
		t.Fatal(err)
	}
	createStorageClass(ctx, t, s, "mock", waitForFirstConsumer)

	outcomes := []string{
		"controller_persistentvolumeclaim_provision_total",
		"controller_persistentvolumeclaim_provision_failed_total",
		"controller_persistentvolume_delete_total",
		"controller_persistentvolume_delete_failed_total",
	}
	// Each claim's first CreateVolume and DeleteVolume fail with even odds:
	// ten claims all without a failure would be a thousandth of a chance.
	const maxClaims = 10
	for i := 0; ; i++ {
		missing := unservedMetrics(ctx, t, metricsURL, outcomes)
		if len(missing) == 0 {
			t.Logf("the library counted successes and failures of both after %d claims", i)
			break
		}
		if i == maxClaims {
			t.Fatalf("after %d claims on a driver failing half its calls, the library has no series of %v", maxClaims, missing)
		}
		name := fmt.Sprintf("claim-%d", i)
		createClaim(ctx, t, s, "default", name, "mock", claimOnNode(nodes[0]))
		_, pv := waitForClaimBound(ctx, t, s, "default", name)
		deleteClaim(ctx, t, s, "default", name)
		waitForClaimGone(ctx, t, s, "default", name)
		waitForPVGone(ctx, t, s, pv.Name)
	}

	waitFor(ctx, t, s, fmt.Sprintf("the %d metrics of %s to be served", len(names), monitoringNamesFile), func(ctx context.Context) (bool, error) {
		missing := unservedMetrics(ctx, t, metricsURL, names)
		return len(missing) == 0, fmt.Errorf("not served: %v", missing)
	})
}

// monitoringMetricNames reads the names file: one name a line, # comments.
func monitoringMetricNames(t *testing.T) []string {
	t.Helper()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, monitoringNamesFile))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			names = append(names, line)
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s lists no metric", monitoringNamesFile)
	}
	return names
}

// unservedMetrics scrapes url and returns the names that have no series:
// a name is served if a family of that name has a series, or, for a name
// ending in _bucket, _sum or _count, if a histogram or summary of the name
// without that suffix has one.
func unservedMetrics(ctx context.Context, t *testing.T, url string, names []string) []string {
	t.Helper()
	body, err := framework.Scrape(ctx, url)
	if err != nil {
		// Not served yet (the sidecar starting): all are missing.
		return names
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	var missing []string
	for _, name := range names {
		if !servedMetric(families, name) {
			missing = append(missing, name)
		}
	}
	return missing
}

func servedMetric(families map[string]*dto.MetricFamily, name string) bool {
	if f, ok := families[name]; ok && len(f.GetMetric()) > 0 {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		f, ok := families[base]
		if ok && len(f.GetMetric()) > 0 && (f.GetType() == dto.MetricType_HISTOGRAM || f.GetType() == dto.MetricType_SUMMARY) {
			return true
		}
	}
	return false
}
