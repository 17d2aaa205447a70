package framework

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// SidecarOptions configures the csi-provisioner processes.
type SidecarOptions struct {
	// Binary is the sidecar executable, e.g. an upstream
	// external-provisioner release to compare with. Empty means
	// csi-provisioner in the stack's BinDir. Relative paths are relative
	// to the working directory. StartStack, StartSidecar and
	// StartSidecarExpectingExit run it; a node's sidecar
	// (StartNodeSidecar) is always the BinDir's.
	Binary string
	// Replicas is the number of sidecar processes; more than one only
	// makes sense with LeaderElection. Defaults to 1.
	Replicas int
	// Deferred makes StartStack start no sidecar: it only installs the
	// sidecar's identity (the RBAC, unless AsAdmin), and Stack.StartSidecar
	// starts sidecars later, e.g. once a test has filled the cluster.
	Deferred bool
	// AsAdmin runs the sidecar with the cluster's admin kubeconfig. By
	// default it runs as the ServiceAccount of the shipped RBAC
	// (RBACManifest), so every use of the stack also checks that the RBAC
	// grants what the sidecar does.
	AsAdmin bool
	// Timeout is --timeout, the bound of each CSI call. Defaults to 30s,
	// more than upstream's 10s, so a loaded test machine does not turn a
	// slow call into a retry nobody asked for.
	Timeout time.Duration
	// LeaderElection, if set, runs the replicas with --leader-election in
	// the stack's namespace (where the shipped Role grants Leases).
	LeaderElection *LeaderElectionOptions
	// Verbosity is the sidecar's -v. Defaults to 4.
	Verbosity int
	// ExtraArgs are appended to the flags above, e.g. "--strict-topology"
	// or "--retry-interval-max=2s".
	ExtraArgs []string
	// Env is added to the sidecar's environment, e.g. GOMEMLIMIT.
	Env []string
	// RBACManifest replaces the shipped RBAC (RBACManifest), e.g. with
	// upstream external-provisioner's rules kept as test data. Relative
	// paths are relative to the repository root. Only the first sidecar
	// of a stack installs RBAC, so later ones run under the same.
	RBACManifest string
	// ExtraRBACManifests are installed with the shipped RBAC, e.g.
	// VolumeProtectionRBACManifest for a sidecar with PVC protection on.
	ExtraRBACManifests []string
	// Workload, if set, gives every sidecar process a Pod object in the
	// stack's namespace, named after the process (Process.Name), owned the
	// way a Pod of that kind of workload is (one workload object, named
	// WorkloadName, per stack and kind; see CreateWorkload), and passes
	// POD_NAME and NAMESPACE to the process, as the downward API would: what
	// --enable-capacity needs to find the owner of its CSIStorageCapacity
	// objects (--capacity-ownerref-level). A node's sidecar's Pod is bound
	// to its node (spec.nodeName).
	Workload WorkloadKind
}

// LeaderElectionOptions are the Lease timings. The defaults are far below
// upstream's (15s, 10s, 5s) so that a test sees a takeover in seconds.
type LeaderElectionOptions struct {
	// LeaseDuration defaults to 6s.
	LeaseDuration time.Duration
	// RenewDeadline defaults to 4s.
	RenewDeadline time.Duration
	// RetryPeriod defaults to 1s.
	RetryPeriod time.Duration
}

func (o SidecarOptions) withDefaults() SidecarOptions {
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Verbosity == 0 {
		o.Verbosity = 4
	}
	if le := o.LeaderElection; le != nil {
		c := *le
		if c.LeaseDuration <= 0 {
			c.LeaseDuration = 6 * time.Second
		}
		if c.RenewDeadline <= 0 {
			c.RenewDeadline = 4 * time.Second
		}
		if c.RetryPeriod <= 0 {
			c.RetryPeriod = time.Second
		}
		o.LeaderElection = &c
	}
	return o
}

// args is the sidecar's command line.
func (o SidecarOptions) args(socket, kubeconfig, namespace string) []string {
	args := []string{
		"--csi-address=" + socket,
		"--kubeconfig=" + kubeconfig,
		"--timeout=" + o.Timeout.String(),
		"-v=" + strconv.Itoa(o.Verbosity),
	}
	if le := o.LeaderElection; le != nil {
		args = append(args,
			"--leader-election=true",
			"--leader-election-namespace="+namespace,
			"--leader-election-lease-duration="+le.LeaseDuration.String(),
			"--leader-election-renew-deadline="+le.RenewDeadline.String(),
			"--leader-election-retry-period="+le.RetryPeriod.String(),
		)
	} else {
		args = append(args, "--leader-election=false")
	}
	return append(args, o.ExtraArgs...)
}

// startSidecars installs the shipped RBAC (unless AsAdmin) and starts the
// replicas, none when Deferred. It does not wait for them to be ready: they
// list every claim when they start, so nothing created before that is
// missed, and tests wait for outcomes anyway.
func (s *Stack) startSidecars(ctx context.Context, opts SidecarOptions) error {
	kubeconfig, err := s.sidecarKubeconfig(ctx, opts)
	if err != nil {
		return err
	}
	if opts.Deferred {
		return nil
	}
	args := opts.args(s.socket, kubeconfig, s.namespace)
	for i := range opts.Replicas {
		name := "csi-provisioner"
		if opts.Replicas > 1 {
			name = fmt.Sprintf("csi-provisioner-%d", i)
		}
		env, err := s.sidecarEnv(ctx, opts, name, "")
		if err != nil {
			return err
		}
		if _, err := s.startSidecar(ctx, name, opts.binary(s.binDir), args, env, kubeconfig); err != nil {
			return err
		}
	}
	return nil
}

// sidecarEnv is the environment of a sidecar process: with
// opts.Workload, POD_NAME and NAMESPACE of the Pod object it creates for
// the process (bound to node, if set), then opts.Env.
func (s *Stack) sidecarEnv(ctx context.Context, opts SidecarOptions, process, node string) ([]string, error) {
	if opts.Workload == "" {
		return opts.Env, nil
	}
	w, err := s.workload(ctx, opts.Workload)
	if err != nil {
		return nil, err
	}
	pod, err := w.CreatePod(ctx, s.Client(), process, node)
	if err != nil {
		return nil, err
	}
	return append(PodEnv(pod), opts.Env...), nil
}

// StartSidecar starts one more sidecar process on the running stack, with
// opts' flags (Replicas and Deferred are ignored), and returns it; Stop
// stops it with the others. It runs under the RBAC StartStack installed,
// which is installed again only if opts asks for an extra manifest not yet
// installed. Each process is named, and logs to a file named, after its
// place among the stack's sidecars ("csi-provisioner-2"), so a test that
// starts one sidecar after another keeps one log per process.
func (s *Stack) StartSidecar(ctx context.Context, opts SidecarOptions) (*Process, error) {
	opts = opts.withDefaults()
	kubeconfig, err := s.sidecarKubeconfig(ctx, opts)
	if err != nil {
		return nil, err
	}
	if len(s.nodes) > 0 {
		return nil, errors.New("the stack runs one sidecar per node (StackOptions.Nodes): use StartNodeSidecar")
	}
	name := "csi-provisioner"
	if len(s.sidecars) > 0 {
		name = fmt.Sprintf("csi-provisioner-%d", len(s.sidecars))
	}
	env, err := s.sidecarEnv(ctx, opts, name, "")
	if err != nil {
		return nil, err
	}
	return s.startSidecar(ctx, name, opts.binary(s.binDir), opts.args(s.socket, kubeconfig, s.namespace), env, kubeconfig)
}

// sidecarKubeconfig returns the kubeconfig a sidecar with opts runs with:
// the admin's, or the shipped RBAC's ServiceAccount's, installing the RBAC
// with opts' extra manifests unless an earlier call already did.
func (s *Stack) sidecarKubeconfig(ctx context.Context, opts SidecarOptions) (string, error) {
	if opts.AsAdmin {
		s.sidecarUser = adminUser
		return s.cluster.Kubeconfig(), nil
	}
	manifests := slices.Clone(s.rbacManifests)
	for _, m := range opts.ExtraRBACManifests {
		if !slices.Contains(manifests, m) {
			manifests = append(manifests, m)
		}
	}
	if s.rbac == nil || len(manifests) > len(s.rbacManifests) {
		main := opts.RBACManifest
		if main == "" {
			main = RBACManifest
		}
		if s.rbacManifest != "" {
			main = s.rbacManifest
		}
		path, err := repoPath(main)
		if err != nil {
			return "", err
		}
		install, err := s.cluster.InstallRBAC(ctx, RBACOptions{
			ManifestPath:   path,
			Namespace:      s.namespace,
			ExtraManifests: manifests,
			KubeconfigPath: filepath.Join(s.workDir, "csi-provisioner.kubeconfig"),
		})
		if err != nil {
			return "", fmt.Errorf("install %s: %w", main, err)
		}
		s.rbac = install
		s.rbacManifest = main
		s.rbacManifests = manifests
	}
	s.sidecarUser = "system:serviceaccount:" + s.rbac.Namespace + ":" + s.rbac.ServiceAccount
	return s.rbac.Kubeconfig, nil
}

// StartSidecarExpectingExit starts a sidecar that the test expects to exit
// on its own, e.g. on flags it refuses. It is not one of the stack's
// sidecars, so its exit is no error of the stack; the caller waits for it
// (Process.Wait) and stops it if it does not exit.
func (s *Stack) StartSidecarExpectingExit(ctx context.Context, opts SidecarOptions) (*Process, error) {
	opts = opts.withDefaults()
	kubeconfig, err := s.sidecarKubeconfig(ctx, opts)
	if err != nil {
		return nil, err
	}
	s.exitingSidecars++
	name := fmt.Sprintf("csi-provisioner-exiting-%d", s.exitingSidecars)
	socket := s.socket
	if len(s.nodes) > 0 {
		// A node's sidecar refused, e.g. on node-deployment flags: the
		// first node's driver is as good as any.
		socket = s.nodes[0].socket
	}
	env, err := s.sidecarEnv(ctx, opts, name, "")
	if err != nil {
		return nil, err
	}
	return s.sidecarProcessOf(ctx, name, opts.binary(s.binDir), opts.args(socket, kubeconfig, s.namespace), env, kubeconfig, filepath.Join(s.workDir, name+".log"))
}

func (s *Stack) startSidecar(ctx context.Context, name, binary string, args, env []string, kubeconfig string) (*Process, error) {
	p, err := s.sidecarProcessOf(ctx, name, binary, args, env, kubeconfig, filepath.Join(s.workDir, name+".log"))
	if err != nil {
		return nil, err
	}
	s.sidecars = append(s.sidecars, p)
	return p, nil
}

// binary is the sidecar executable opts ask for: Binary, or csi-provisioner
// in binDir.
func (o SidecarOptions) binary(binDir string) string {
	if o.Binary != "" {
		return o.Binary
	}
	return filepath.Join(binDir, "csi-provisioner")
}

// sidecarProcess starts csi-provisioner of the stack's BinDir, as a node's
// sidecar does.
func (s *Stack) sidecarProcess(ctx context.Context, name string, args, env []string, kubeconfig, logFile string) (*Process, error) {
	return s.sidecarProcessOf(ctx, name, filepath.Join(s.binDir, "csi-provisioner"), args, env, kubeconfig, logFile)
}

// sidecarProcessOf starts the sidecar executable binary. Where it can, it
// gives the process a host name of its own, its name, as each pod of a
// Deployment has: the sidecar's Lease identity is its host name, as
// upstream's, so replicas sharing this machine's name would all lead.
func (s *Stack) sidecarProcessOf(ctx context.Context, name, binary string, args, env []string, kubeconfig, logFile string) (*Process, error) {
	hostname := ""
	if OwnHostnames() {
		hostname = name
	}
	return StartProcess(ctx, ProcessOptions{
		Name:     name,
		Hostname: hostname,
		Path:     binary,
		Args:     args,
		// The sidecar prefers $KUBECONFIG over --kubeconfig, as
		// upstream does; a developer's own cluster in the environment
		// must not be the one it talks to.
		Env:     append([]string{"KUBECONFIG=" + kubeconfig}, env...),
		LogFile: logFile,
	})
}
