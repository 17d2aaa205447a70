//go:build e2e

// These tests need the control plane from `make e2e-tools`:
//
//	go test -tags e2e ./test/e2e/framework/
package framework

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestClusterStartStop(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	workDir := t.TempDir()
	c, err := StartCluster(ctx, ClusterOptions{
		WorkDir:        workDir,
		KCMControllers: []string{ControllerPVProtection, ControllerPVCProtection},
		AuditLog:       true,
	})
	if err != nil {
		t.Fatalf("StartCluster: %v", err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			c.Stop()
		}
	})
	procs := []*Process{c.Etcd(), c.APIServer(), c.ControllerManager()}

	v, err := c.Client().Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("ServerVersion: %v", err)
	}
	t.Logf("kube-apiserver %s at %s", v.GitVersion, c.Host())

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "framework-test"}}
	if _, err := c.Client().CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	events, err := c.AuditEvents()
	if err != nil {
		t.Fatalf("AuditEvents: %v", err)
	}
	if !hasAuditEvent(events, "create", "namespaces", "csi-provisioner-e2e") {
		t.Errorf("audit log has no namespace creation by the framework's client among %d events", len(events))
	}

	t.Run("InstallRBAC", func(t *testing.T) {
		_, ctx := ktesting.NewTestContext(t)
		testInstallRBAC(ctx, t, c)
	})

	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	stopped = true
	for _, p := range procs {
		if exited, _ := p.Exited(); !exited {
			t.Errorf("%s still running after Stop", p.Name())
		}
		if err := syscall.Kill(-p.Pid(), 0); err == nil {
			t.Errorf("process group of %s (%d) still exists", p.Name(), p.Pid())
		}
	}
	if _, err := c.Client().Discovery().ServerVersion(); err == nil {
		t.Error("the apiserver still answers after Stop")
	}
}

func hasAuditEvent(events []AuditEvent, verb, resource, userAgentPrefix string) bool {
	for _, ev := range events {
		if ev.Verb == verb && ev.ObjectRef != nil && ev.ObjectRef.Resource == resource &&
			len(ev.UserAgent) >= len(userAgentPrefix) && ev.UserAgent[:len(userAgentPrefix)] == userAgentPrefix {
			return true
		}
	}
	return false
}

// testInstallRBAC checks that the shipped RBAC installs into another
// namespace and grants the sidecar's permissions and no others.
func testInstallRBAC(ctx context.Context, t *testing.T, c *Cluster) {
	install, err := c.InstallRBAC(ctx, RBACOptions{Namespace: "rbac-test"})
	if err != nil {
		t.Fatalf("InstallRBAC: %v", err)
	}
	if install.Namespace != "rbac-test" || install.ServiceAccount != "csi-provisioner" {
		t.Errorf("installed %s/%s, want rbac-test/csi-provisioner", install.Namespace, install.ServiceAccount)
	}
	if filepath.Dir(install.Kubeconfig) != c.WorkDir() {
		t.Errorf("kubeconfig %s is outside the work dir %s", install.Kubeconfig, c.WorkDir())
	}
	client, err := kubernetes.NewForConfig(install.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("list PVs as the sidecar: %v", err)
	}
	for _, attr := range []authorizationv1.ResourceAttributes{
		{Verb: "list", Resource: "secrets", Namespace: "default"},
		{Verb: "create", Resource: "pods", Namespace: "default"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "default"},
	} {
		ssar := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attr}}
		res, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, ssar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status.Allowed {
			t.Errorf("the sidecar may %s %s in %s; the shipped RBAC does not grant that", attr.Verb, attr.Resource, attr.Namespace)
		}
	}
}

func TestProcessKillStopRestart(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	log := filepath.Join(t.TempDir(), "sleep.log")
	p, err := StartProcess(ctx, ProcessOptions{Path: "/bin/sleep", Args: []string{"600"}, LogFile: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill() })

	first := p.Pid()
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if exited, err := p.Exited(); !exited || err == nil {
		t.Fatalf("after Kill: exited=%v err=%v, want exited by a signal", exited, err)
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if p.Pid() == first {
		t.Error("Restart kept the old pid")
	}
	if exited, _ := p.Exited(); exited {
		t.Fatal("restarted process exited at once")
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if lines := TailLog(log, 10); len(lines) != 2 {
		t.Errorf("log has %d lines, want one start header per run: %q", len(lines), lines)
	}
}

// A program that ignores SIGTERM, and a child it forked, are both gone after
// Stop's timeout.
func TestProcessStopEscalates(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ready := filepath.Join(t.TempDir(), "ready")
	p, err := StartProcess(ctx, ProcessOptions{
		Path:        "/bin/sh",
		Args:        []string{"-c", `trap "" TERM; sleep 600 & touch "$0"; wait`, ready},
		StopTimeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill() })
	// The shell has installed the trap and forked once it touches ready.
	testutil.Eventually(t, 5*time.Second, "the shell to be ready", func() bool {
		_, err := os.Stat(ready)
		return err == nil
	})
	start := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("Stop returned after %v, before the SIGTERM timeout", d)
	}
	testutil.Eventually(t, 5*time.Second, "the forked sleep to end with Stop", func() bool {
		return syscall.Kill(-p.Pid(), 0) != nil
	})
}

func TestStartClusterMissingBinaries(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := StartCluster(ctx, ClusterOptions{BinDir: t.TempDir()})
	if err == nil {
		t.Fatal("StartCluster succeeded without binaries")
	}
	t.Logf("error as expected: %v", err)
}

// An exit nobody asked for is reported; one caused by Stop or Kill is not.
func TestProcessUnexpectedExit(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	p, err := StartProcess(ctx, ProcessOptions{Path: "/bin/sh", Args: []string{"-c", "exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p.Wait(waitCtx)
	if err := p.UnexpectedExit(); err == nil {
		t.Error("a process that exited by itself is not reported")
	} else {
		t.Logf("reported as expected: %v", err)
	}

	sleeper, err := StartProcess(ctx, ProcessOptions{Path: "/bin/sleep", Args: []string{"600"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sleeper.UnexpectedExit(); err != nil {
		t.Errorf("running process reported: %v", err)
	}
	if err := sleeper.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := sleeper.UnexpectedExit(); err != nil {
		t.Errorf("killed process reported: %v", err)
	}
}

// A stack with the sidecar as admin starts, serves the driver's socket and
// state, and leaves no process, socket or work dir behind.
func TestStartStackAsAdmin(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	s, err := StartStack(ctx, StackOptions{Sidecar: SidecarOptions{AsAdmin: true}})
	if err != nil {
		t.Fatalf("StartStack: %v", err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			s.Stop()
		}
	})
	if s.RBAC() != nil || s.SidecarUser() != adminUser {
		t.Errorf("as admin: RBAC %v, user %q; want none, %q", s.RBAC(), s.SidecarUser(), adminUser)
	}
	if len(s.Sidecars()) != 1 || s.DriverName() == "" {
		t.Errorf("%d sidecars, driver %q", len(s.Sidecars()), s.DriverName())
	}
	if vols, err := s.DriverVolumes(); err != nil || len(vols) != 0 {
		t.Errorf("fresh driver: %d volumes, %v", len(vols), err)
	}
	// The sidecar is up once it has found the driver; it would have
	// exited otherwise, which WaitFor reports.
	err = s.WaitFor(ctx, 30*time.Second, "the sidecar to detect the driver", func(context.Context) (bool, error) {
		return strings.Contains(strings.Join(TailLog(s.Sidecar().LogFile(), 1000), "\n"), "Detected CSI driver"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	procs := s.processes()
	workDir := s.WorkDir()
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	stopped = true
	for _, p := range procs {
		if syscall.Kill(-p.Pid(), 0) == nil {
			t.Errorf("%s still exists after Stop", p.Name())
		}
	}
	if _, err := os.Stat(workDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary work dir %s left behind: %v", workDir, err)
	}
}

// A stack started with a deferred sidecar runs none until StartSidecar,
// which starts one process after another, each with its own log, under
// the RBAC installed once; kube-controller-manager restarts in between.
func TestStartStackDeferredSidecar(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	s, err := StartStack(ctx, StackOptions{Sidecar: SidecarOptions{Deferred: true}})
	if err != nil {
		t.Fatalf("StartStack: %v", err)
	}
	t.Cleanup(func() { s.Stop() })
	if s.Sidecar() != nil || len(s.Sidecars()) != 0 {
		t.Fatalf("deferred: %d sidecars started", len(s.Sidecars()))
	}
	if s.RBAC() == nil || s.SidecarUser() != "system:serviceaccount:default:csi-provisioner" {
		t.Errorf("deferred: RBAC %v, user %q; want the shipped ServiceAccount's", s.RBAC(), s.SidecarUser())
	}
	kubeconfig := s.RBAC().Kubeconfig

	detected := func(p *Process) error {
		return s.WaitFor(ctx, 30*time.Second, p.Name()+" to detect the driver", func(context.Context) (bool, error) {
			return strings.Contains(strings.Join(TailLog(p.LogFile(), 1000), "\n"), "Detected CSI driver"), nil
		})
	}
	first, err := s.StartSidecar(ctx, SidecarOptions{})
	if err != nil {
		t.Fatalf("StartSidecar: %v", err)
	}
	if err := detected(first); err != nil {
		t.Fatal(err)
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	if s.RBAC().Kubeconfig != kubeconfig {
		t.Error("the RBAC was installed again for a sidecar that asked for nothing new")
	}

	if err := s.Cluster().ControllerManager().Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Cluster().RestartControllerManager(ctx); err != nil {
		t.Fatalf("RestartControllerManager: %v", err)
	}

	second, err := s.StartSidecar(ctx, SidecarOptions{ExtraRBACManifests: []string{VolumeProtectionRBACManifest}})
	if err != nil {
		t.Fatalf("StartSidecar: %v", err)
	}
	if err := detected(second); err != nil {
		t.Fatal(err)
	}
	if second.Name() == first.Name() || second.LogFile() == first.LogFile() {
		t.Errorf("second sidecar %s logs to %s, like the first", second.Name(), second.LogFile())
	}
	if len(s.Sidecars()) != 2 || s.Sidecar() != first {
		t.Errorf("Sidecars() = %d processes, want both, the first first", len(s.Sidecars()))
	}
	// The extra manifest asked for by the second sidecar is in force.
	client, err := kubernetes.NewForConfig(s.RBAC().RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		t.Errorf("list pods with the volume protection RBAC: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
}
