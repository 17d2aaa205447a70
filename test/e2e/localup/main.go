// Command localup runs the e2e stack in the foreground for trying the sidecar
// by hand: etcd, kube-apiserver and kube-controller-manager on loopback, the
// mock CSI driver, and csi-provisioner under the shipped RBAC, plus a
// StorageClass "mock" of the driver. It prints the KUBECONFIG to use and a few
// kubectl commands, then waits. Ctrl-C (or SIGTERM) stops every process and
// removes the work dir.
//
// Run it with `make local-up`, which builds what it needs first; extra flags
// go in LOCAL_UP_ARGS, e.g. LOCAL_UP_ARGS="--driver-arg=--create-delay=5s".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/testutil/poll"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// storageClassName is the class created for the driver, also the default
// class so that a claim without storageClassName uses it.
const storageClassName = "mock"

// config is the command line.
type config struct {
	binDir          string
	controlPlaneDir string
	workDir         string
	keepWorkDir     bool
	sidecarV        int
	driverArgs      listFlag
	sidecarArgs     listFlag
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	klog.InitFlags(nil)
	var cfg config
	flag.StringVar(&cfg.binDir, "bin-dir", "", "folder with csi-provisioner and mock-csi-driver (default: $"+framework.BinDirEnv+" or bin/ in the repository)")
	flag.StringVar(&cfg.controlPlaneDir, "control-plane-dir", "", "folder with etcd, kube-apiserver and kube-controller-manager (default: $"+framework.ControlPlaneDirEnv+" or _output/control-plane)")
	flag.StringVar(&cfg.workDir, "work-dir", "", "folder for data, kubeconfigs and logs (default: a new temporary folder, removed on exit)")
	flag.BoolVar(&cfg.keepWorkDir, "keep-work-dir", false, "keep the work folder after exit")
	flag.IntVar(&cfg.sidecarV, "sidecar-v", 4, "log verbosity of csi-provisioner (its -v)")
	flag.Var(&cfg.driverArgs, "driver-arg", "extra flag for mock-csi-driver, e.g. --driver-arg=--failure-rate=0.5 (repeatable)")
	flag.Var(&cfg.sidecarArgs, "sidecar-arg", "extra flag for csi-provisioner, e.g. --sidecar-arg=--timeout=5s (repeatable)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "local-up: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	os.Exit(run(cfg))
}

func run(cfg config) int {
	defer klog.Flush()
	// The components run in their own process groups, so Ctrl-C reaches
	// only this process, which then stops them in order.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = klog.NewContext(ctx, klog.Background())

	workDir, removeWorkDir, err := prepareWorkDir(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "local-up: %v\n", err)
		return 1
	}
	fmt.Printf("local-up: starting etcd, kube-apiserver, kube-controller-manager, mock-csi-driver and csi-provisioner in %s\n", workDir)
	s, err := framework.StartStack(ctx, framework.StackOptions{
		BinDir:  cfg.binDir,
		WorkDir: workDir,
		Cluster: framework.ClusterOptions{BinDir: cfg.controlPlaneDir},
		Driver:  framework.DriverOptions{ExtraArgs: cfg.driverArgs},
		Sidecar: framework.SidecarOptions{Verbosity: cfg.sidecarV, ExtraArgs: cfg.sidecarArgs},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "local-up: %v\nlocal-up: logs kept in %s\n", err, workDir)
		return 1
	}
	code := 0
	if err := createStorageClass(ctx, s); err != nil {
		fmt.Fprintf(os.Stderr, "local-up: %v\n", err)
		code = 1
	} else {
		printUsage(s)
		if err := waitForEnd(ctx, s); err != nil {
			fmt.Fprintf(os.Stderr, "\nlocal-up: %v\n", err)
			code = 1
		}
	}

	fmt.Println("\nlocal-up: stopping csi-provisioner, mock-csi-driver and the control plane")
	if err := s.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "local-up: %v\n", err)
		code = 1
	}
	if code != 0 || !removeWorkDir {
		fmt.Printf("local-up: logs and data kept in %s\n", workDir)
	} else if err := os.RemoveAll(workDir); err != nil {
		fmt.Fprintf(os.Stderr, "local-up: could not remove %s: %v\n", workDir, err)
		code = 1
	}
	if code == 0 {
		fmt.Println("local-up: stopped; no process left")
	}
	return code
}

// prepareWorkDir returns the work dir and whether to remove it on exit.
func prepareWorkDir(cfg config) (string, bool, error) {
	if cfg.workDir != "" {
		// Absolute, since the printed KUBECONFIG is pasted into other
		// shells.
		dir, err := filepath.Abs(cfg.workDir)
		if err != nil {
			return "", false, err
		}
		return dir, false, os.MkdirAll(dir, 0o755)
	}
	// Short, because the driver's socket lives in it.
	dir, err := os.MkdirTemp("", "csi-local-")
	return dir, !cfg.keepWorkDir, err
}

// createStorageClass creates the driver's class, as the default class.
func createStorageClass(ctx context.Context, s *framework.Stack) error {
	sc := framework.NewStorageClass(storageClassName, s.DriverName())
	sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
	if _, err := s.Client().StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create StorageClass %s: %w", storageClassName, err)
	}
	return nil
}

// printUsage tells how to reach the cluster and what to try.
func printUsage(s *framework.Stack) {
	note := ""
	if _, err := exec.LookPath("kubectl"); err != nil {
		note = "  (kubectl is not in PATH; any recent version works)\n"
	}
	fmt.Printf(`
local-up: ready. The sidecar runs as %s (%s).

  export KUBECONFIG=%s

Try:
%s  kubectl get storageclass
  kubectl apply -f - <<'EOF'
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: demo
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: %s
  resources:
    requests:
      storage: 1Gi
EOF
  kubectl get pvc,pv
  kubectl describe pvc demo
  kubectl delete pvc demo
  cat %s    # the driver's volumes

Logs:
`, s.SidecarUser(), framework.RBACManifest, s.Cluster().Kubeconfig(), note, storageClassName, s.StateFile())
	for _, l := range s.LogFiles() {
		fmt.Printf("  %s\n", l)
	}
	fmt.Println("\nCtrl-C stops everything.")
}

// waitForEnd returns nil on Ctrl-C or SIGTERM, and an error if a component
// exits on its own first: the stack would no longer be what was printed.
func waitForEnd(ctx context.Context, s *framework.Stack) error {
	// Nothing to wait for but the end: only a dead component ends it early.
	never := func(context.Context) (bool, error) { return false, nil }
	err := poll.Until(ctx, time.Second, never, s.CheckAlive)
	if errors.As(err, new(*poll.Expired)) {
		return nil
	}
	return errors.Join(errors.New("a component exited; stopping the rest"), err)
}
