package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
	"github.com/csi-protect/external-provisioner/pkg/rollback"
)

func TestPrepareRollbackModes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want rollback.Mode
	}{
		{nil, ""},
		{[]string{"--prepare-rollback=report"}, rollback.ModeReport},
		{[]string{"--prepare-rollback", "clear"}, rollback.ModeClear},
		{[]string{"-prepare-rollback=clear", "--kubeconfig=/tmp/kubeconfig"}, rollback.ModeClear},
	} {
		cfg, err := parseFlags(tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if cfg.prepareRollback != tc.want {
			t.Errorf("%q: mode %q, want %q", tc.args, cfg.prepareRollback, tc.want)
		}
	}
}

func TestPrepareRollbackRefusesOtherValues(t *testing.T) {
	requireRefused(t, []refusal{
		{[]string{"--prepare-rollback=yes"}, "--prepare-rollback"},
		{[]string{"--prepare-rollback="}, "--prepare-rollback"},
		{[]string{"--prepare-rollback=Report"}, "--prepare-rollback"},
		{[]string{"--prepare-rollback"}, "--prepare-rollback"},
	})
}

// A flag error of the check is not its "not ready" (1): scripts tell them
// apart.
func TestPrepareRollbackFlagErrorExits2(t *testing.T) {
	for _, args := range [][]string{
		{"--prepare-rollback=repot"},
		{"--prepare-rollback=report", "--timeout=0"},
	} {
		var stdout, stderr bytes.Buffer
		code := realMain(append([]string{"/csi-provisioner"}, args...), &stdout, &stderr)
		if code != exitRollbackFlagError || !strings.HasPrefix(stderr.String(), "csi-provisioner: ") || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q", args, code, stderr.String(), stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"/csi-provisioner", "--timeout=0"}, &stdout, &stderr); code != 1 {
		t.Errorf("without the check a flag error exits %d, want upstream's 1", code)
	}
}

// apiServer answers the check's lists with claims (JSON items), and no PV
// nor StorageClass.
func apiServer(t *testing.T, claims ...string) string {
	lists := map[string]string{
		"/api/v1/persistentvolumeclaims":         fmt.Sprintf(`{"kind":"PersistentVolumeClaimList","apiVersion":"v1","metadata":{},"items":[%s]}`, strings.Join(claims, ",")),
		"/api/v1/persistentvolumes":              `{"kind":"PersistentVolumeList","apiVersion":"v1","metadata":{},"items":[]}`,
		"/apis/storage.k8s.io/v1/storageclasses": `{"kind":"StorageClassList","apiVersion":"storage.k8s.io/v1","metadata":{},"items":[]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		list, ok := lists[r.URL.Path]
		if r.Method != http.MethodGet || !ok {
			t.Errorf("unexpected request %s %s", r.Method, r.URL)
			http.Error(w, "not here", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, list)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// runCheck runs the mode as realMain does once the flags are parsed; the
// CSI address points nowhere, so a check that dialled the driver would
// hang.
func runCheck(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cfg, err := parseFlags(append(args, "--csi-address=/nonexistent/csi.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", "")
	var stdout, stderr bytes.Buffer
	_, ctx := ktesting.NewTestContext(t)
	code := prepareRollback(ctx, cfg, cmdutil.Invocation{Args: []string{"/csi-provisioner"}, Stdout: &stdout, Stderr: &stderr})
	return code, stdout.String(), stderr.String()
}

func TestPrepareRollbackReadyExits0(t *testing.T) {
	code, stdout, stderr := runCheck(t, "--prepare-rollback=report", "--master="+apiServer(t))
	if code != exitRollbackReady || !strings.HasSuffix(stdout, "Ready to swap back: nothing upstream would mishandle.\n") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

func TestPrepareRollbackNotReadyExits1(t *testing.T) {
	pending := `{"metadata":{"name":"data-0","namespace":"shop","resourceVersion":"7","finalizers":["provisioner.storage.kubernetes.io/provisioning-protection"]},"status":{"phase":"Pending"}}`
	code, stdout, stderr := runCheck(t, "--prepare-rollback=clear", "--master="+apiServer(t, pending))
	if code != exitRollbackNotReady || !strings.Contains(stdout, "needs you: provisioning in progress") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

func TestPrepareRollbackThatCannotListExits3(t *testing.T) {
	code, stdout, stderr := runCheck(t, "--prepare-rollback=report", "--master=http://127.0.0.1:1")
	if code != exitRollbackCheckError || !strings.Contains(stderr, "csi-provisioner: listing PersistentVolumeClaims") || stdout != "" {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
