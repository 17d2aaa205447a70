//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const (
	metricOrphanedVolumes = "csi_provisioner_orphan_audit_orphaned_volumes"
	metricOrphanAudits    = "csi_provisioner_orphan_audit_audits_total"
)

// orphanReports counts the sidecar's log lines reporting handle as orphaned.
func orphanReports(t *testing.T, s *framework.Stack, handle string) int {
	t.Helper()
	data, err := os.ReadFile(s.Sidecar().LogFile())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.Contains(line, "Orphaned volume") && strings.Contains(line, `handle="`+handle+`"`) {
			n++
		}
	}
	return n
}

// With --orphan-audit-interval, a volume made behind the sidecar's back
// (no PV, no claim) is reported once, as a log line with its handle and in
// the orphaned-volumes gauge, and is not deleted; a provisioned volume is
// never reported.
func TestOrphanAuditReportsAVolumeNothingAccountsFor(t *testing.T) {
	httpFlag, metricsURL := metricsEndpoint(t)
	ctx, s := startStack(t, framework.StackOptions{
		Sidecar: framework.SidecarOptions{ExtraArgs: []string{httpFlag, "--orphan-audit-interval=1s", "--orphan-audit-grace-period=3s"}},
	})
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "normal", "mock")
	_, pv := waitForClaimBound(ctx, t, s, "default", "normal")
	orphan := createVolumeBehindTheSidecar(ctx, t, s.Socket(), "made-behind-the-sidecar", "", 1<<30)

	waitForMetric(ctx, t, s, metricsURL, metricOrphanedVolumes, "= 1", equals(1))
	// Several audits later it is still one report, and the volume is kept.
	audits, err := framework.ScrapeMetric(ctx, metricsURL, metricOrphanAudits, map[string]string{"result": "success"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, s, "three more audits", func(ctx context.Context) (bool, error) {
		v, err := framework.ScrapeMetric(ctx, metricsURL, metricOrphanAudits, map[string]string{"result": "success"})
		return err == nil && v >= audits+3, fmt.Errorf("%v audits, %v", v, err)
	})
	if n := orphanReports(t, s, orphan.VolumeId); n != 1 {
		t.Errorf("the orphan was reported %d times, want once", n)
	}
	if n := orphanReports(t, s, pv.Spec.CSI.VolumeHandle); n != 0 {
		t.Errorf("the provisioned volume was reported %d times", n)
	}
	if _, ok := volumeByID(driverVolumes(t, s), orphan.VolumeId); !ok {
		t.Error("the audit deleted the orphan; it must only report it")
	}
}
