package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
)

// stackNode is one node of a stack with StackOptions.Nodes: its driver and
// its sidecar, with their files in their own directory.
type stackNode struct {
	name      string
	dir       string
	socket    string
	stateFile string
	driver    *Process
	sidecar   *Process
}

// checkNodeOptions refuses what a stack with Nodes cannot do.
func checkNodeOptions(opts StackOptions) error {
	var errs []error
	seen := map[string]bool{}
	for _, name := range opts.Nodes {
		// A node name is a directory name here, and a Node's name there.
		if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("node name %q: %v", name, msgs))
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("node %q is listed twice", name))
		}
		seen[name] = true
	}
	if opts.Sidecar.Replicas > 1 || opts.Sidecar.LeaderElection != nil {
		errs = append(errs, errors.New("a stack with Nodes runs one sidecar per node, without leader election"))
	}
	if opts.Snapshots.Enabled {
		errs = append(errs, errors.New("a stack with Nodes has no snapshot stack"))
	}
	return errors.Join(errs...)
}

// startNodes starts, per node, its driver, then registers the nodes (Node
// and CSINode), then starts the nodes' sidecars unless Deferred.
func (s *Stack) startNodes(ctx context.Context, opts StackOptions) error {
	s.driverOpts = opts.Driver.withDefaults()
	for _, name := range opts.Nodes {
		n := &stackNode{name: name, dir: filepath.Join(s.workDir, name)}
		n.socket = filepath.Join(n.dir, "csi.sock")
		n.stateFile = filepath.Join(n.dir, "driver-state.json")
		if len(n.socket) > 100 {
			return fmt.Errorf("work dir %s is too long for the unix socket path of node %s; use a shorter one", s.workDir, name)
		}
		if err := os.MkdirAll(n.dir, 0o755); err != nil {
			return err
		}
		s.nodes = append(s.nodes, n)
		p, err := s.runDriver(ctx, "mock-csi-driver-"+name, n.socket, n.stateFile, filepath.Join(n.dir, "mock-csi-driver.log"), s.nodeDriverOptions(name))
		if err != nil {
			return fmt.Errorf("start mock driver of node %s: %w", name, err)
		}
		n.driver = p
	}
	if err := s.CreateNodes(ctx, opts.Nodes...); err != nil {
		return err
	}
	sidecar := opts.Sidecar.withDefaults()
	if sidecar.Deferred {
		// Only the identity, as for central sidecars.
		_, err := s.sidecarKubeconfig(ctx, sidecar)
		return err
	}
	for _, name := range opts.Nodes {
		if _, err := s.StartNodeSidecar(ctx, name, sidecar); err != nil {
			return fmt.Errorf("start csi-provisioner of node %s: %w", name, err)
		}
	}
	return nil
}

// nodeDriverOptions are the stack's driver options as one node's driver
// runs them: its node id, with topology.
func (s *Stack) nodeDriverOptions(node string) DriverOptions {
	o := s.driverOpts
	o.NodeID = node
	o.Topology = true
	o.ExtraArgs = slices.Clone(o.ExtraArgs)
	return o
}

// node returns a node of the stack. Asking for a node the stack does not
// have is a mistake in the test, hence the panic.
func (s *Stack) node(name string) *stackNode {
	for _, n := range s.nodes {
		if n.name == name {
			return n
		}
	}
	panic(fmt.Sprintf("the stack has no node %q (nodes: %v)", name, s.Nodes()))
}

// Nodes returns the names of StackOptions.Nodes, in order.
func (s *Stack) Nodes() []string {
	names := make([]string, len(s.nodes))
	for i, n := range s.nodes {
		names[i] = n.name
	}
	return names
}

// NodeDriver returns the mock driver process of a node; its log is
// LogFile().
func (s *Stack) NodeDriver(node string) *Process { return s.node(node).driver }

// NodeSocket returns the path of a node's driver socket.
func (s *Stack) NodeSocket(node string) string { return s.node(node).socket }

// NodeStateFile returns the path of a node's driver state file.
func (s *Stack) NodeStateFile(node string) string { return s.node(node).stateFile }

// NodeDriverState returns what a node's driver persisted now.
func (s *Stack) NodeDriverState(node string) (*DriverState, error) {
	return ReadDriverState(s.node(node).stateFile)
}

// NodeSidecar returns a node's sidecar process, or nil before
// StartNodeSidecar (with SidecarOptions.Deferred).
func (s *Stack) NodeSidecar(node string) *Process { return s.node(node).sidecar }

// StartNodeSidecar starts a node's sidecar: --csi-address the node's
// driver socket, --node-deployment before opts.ExtraArgs (so an explicit
// --node-deployment=false there wins), leader election off, and NODE_NAME
// set to the node. It runs under the RBAC the stack installed (see
// StartSidecar) and logs to WorkDir/<node>/csi-provisioner.log, as process
// "csi-provisioner-<node>". A node has one sidecar: to run it again after
// KillNodeSidecar or Stop, use RestartNodeSidecar, which keeps its flags.
func (s *Stack) StartNodeSidecar(ctx context.Context, node string, opts SidecarOptions) (*Process, error) {
	n := s.node(node)
	if n.sidecar != nil {
		return nil, fmt.Errorf("node %s has a sidecar already; restart it with RestartNodeSidecar", node)
	}
	opts = opts.withDefaults()
	if opts.LeaderElection != nil {
		return nil, errors.New("a node's sidecar runs without leader election")
	}
	kubeconfig, err := s.sidecarKubeconfig(ctx, opts)
	if err != nil {
		return nil, err
	}
	opts.ExtraArgs = append([]string{"--node-deployment"}, opts.ExtraArgs...)
	name := "csi-provisioner-" + node
	env, err := s.sidecarEnv(ctx, opts, name, node)
	if err != nil {
		return nil, err
	}
	env = append([]string{"NODE_NAME=" + node}, env...)
	p, err := s.sidecarProcess(ctx, name, opts.args(n.socket, kubeconfig, s.namespace), env, kubeconfig, filepath.Join(n.dir, "csi-provisioner.log"))
	if err != nil {
		return nil, err
	}
	n.sidecar = p
	return p, nil
}

// KillNodeSidecar kills a node's sidecar with SIGKILL: a crash, with no
// chance to clean up. RestartNodeSidecar starts it again.
func (s *Stack) KillNodeSidecar(node string) error {
	p := s.node(node).sidecar
	if p == nil {
		return fmt.Errorf("node %s has no sidecar", node)
	}
	return p.Kill()
}

// RestartNodeSidecar starts a node's sidecar again with the same flags
// and environment, stopping it first (SIGTERM) if it still runs.
func (s *Stack) RestartNodeSidecar(ctx context.Context, node string) error {
	p := s.node(node).sidecar
	if p == nil {
		return fmt.Errorf("node %s has no sidecar", node)
	}
	return p.Restart(ctx)
}
