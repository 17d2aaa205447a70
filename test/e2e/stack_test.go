//go:build e2e

package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const (
	// waitTimeout bounds each wait for the sidecar or the PV binder to act.
	// Either takes a second or two; the margin is for a loaded two-core
	// machine.
	waitTimeout = 60 * time.Second
	// logTailLines is how much of each component's log a failed test
	// prints; the whole logs stay in the kept work dir.
	logTailLines = 60
	// keepWorkDirEnv, when set to anything, keeps every test's work dir
	// (logs, driver state, kubeconfigs), not only a failed test's.
	keepWorkDirEnv = "E2E_KEEP_WORK_DIR"
)

// startStack starts a control plane, mock driver and sidecar for one test,
// with the audit log on. Cleanup checks that the sidecar never had a request
// refused (it runs under the shipped RBAC unless opts says otherwise), stops
// everything, and on failure prints the end of every component's log and
// keeps the work dir.
func startStack(t *testing.T, opts framework.StackOptions) (context.Context, *framework.Stack) {
	t.Helper()
	return startStackChecking(t, opts, !opts.Sidecar.AsAdmin)
}

// startStackChecking is startStack, with refusals of the sidecar's requests
// a failure only when checkRefusals is set: a test that takes a rule away on
// purpose expects them.
func startStackChecking(t *testing.T, opts framework.StackOptions, checkRefusals bool) (context.Context, *framework.Stack) {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	// A short path under the temporary directory: the driver's socket lives
	// in it, and t.TempDir() names can exceed a socket path's 107 bytes.
	workDir, err := os.MkdirTemp("", "csi-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	opts.WorkDir = workDir
	opts.Cluster.AuditLog = true
	s, err := framework.StartStack(ctx, opts)
	if err != nil {
		t.Fatalf("start stack (logs in %s): %v", workDir, err)
	}
	t.Cleanup(func() {
		if checkRefusals {
			checkNoForbiddenRequests(t, s)
		}
		if err := s.Stop(); err != nil {
			t.Errorf("stop stack: %v", err)
		}
		keep := os.Getenv(keepWorkDirEnv) != ""
		if t.Failed() {
			var b strings.Builder
			s.WriteLogTails(&b, logTailLines)
			t.Logf("component logs:%s", b.String())
			keep = true
		}
		if keep {
			t.Logf("work dir kept: %s", workDir)
			return
		}
		if err := os.RemoveAll(workDir); err != nil {
			t.Errorf("remove work dir: %v", err)
		}
	})
	return ctx, s
}

// checkNoForbiddenRequests fails the test if the API server refused any
// request of the sidecar: the shipped RBAC must grant everything it does,
// in every scenario, not only in the dedicated RBAC test.
func checkNoForbiddenRequests(t *testing.T, s *framework.Stack) {
	t.Helper()
	events, err := sidecarAuditEvents(s)
	if err != nil {
		t.Errorf("read audit log: %v", err)
		return
	}
	for _, ev := range events {
		if ev.ResponseStatus != nil && ev.ResponseStatus.Code == 403 {
			t.Errorf("the API server refused the sidecar: %s %s (403)", ev.Verb, ev.RequestURI)
		}
	}
}

// sidecarAuditEvents returns the requests the sidecar made, one event per
// request: its user, and its user agent, since the framework also uses the
// ServiceAccount's token to check that the RBAC is in force. A watch that is
// still open has only its ResponseStarted event, so the first event of each
// request is kept.
func sidecarAuditEvents(s *framework.Stack) ([]framework.AuditEvent, error) {
	all, err := s.Cluster().AuditEvents()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []framework.AuditEvent
	for _, ev := range all {
		if seen[ev.AuditID] || ev.User.Username != s.SidecarUser() || !strings.HasPrefix(ev.UserAgent, "csi-provisioner/") {
			continue
		}
		seen[ev.AuditID] = true
		out = append(out, ev)
	}
	return out, nil
}
