package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"
)

// LocalVolumeAgentManifest is the node agent's shipped manifest: its
// ServiceAccount, ClusterRole and binding, and a DaemonSet.
const LocalVolumeAgentManifest = "deploy/kubernetes/local-volume-agent.yaml"

// LocalVolumeCRDManifests are the CRDs of LocalVolume and LocalVolumeSet.
var LocalVolumeCRDManifests = []string{
	"deploy/kubernetes/crds/local.storage.openshift.io_localvolumes.yaml",
	"deploy/kubernetes/crds/local.storage.openshift.io_localvolumesets.yaml",
}

// InstallLocalVolumeCRDs applies the CRDs and waits until the API server
// serves both kinds.
func (c *Cluster) InstallLocalVolumeCRDs(ctx context.Context) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	for _, p := range LocalVolumeCRDManifests {
		if _, err := ApplyManifests(ctx, c.restConfig, ManifestOptions{Path: filepath.Join(root, p)}); err != nil {
			return err
		}
	}
	waitCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return waitUntil(waitCtx, "the LocalVolume and LocalVolumeSet APIs", nil, func(ctx context.Context) (bool, error) {
		for _, gv := range []string{"local.storage.openshift.io/v1", "local.storage.openshift.io/v1alpha1"} {
			if _, err := c.client.Discovery().ServerResourcesForGroupVersion(gv); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// InstallLocalVolumeAgentRBAC applies the ServiceAccount, ClusterRole and
// ClusterRoleBinding of LocalVolumeAgentManifest (not its DaemonSet: the
// agent runs as a process), writes a kubeconfig for the ServiceAccount at
// kubeconfigPath and waits until every rule is in force. It returns the
// user name the agent authenticates as.
func (c *Cluster) InstallLocalVolumeAgentRBAC(ctx context.Context, kubeconfigPath string) (user string, err error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	install, err := c.InstallRBAC(ctx, RBACOptions{
		ManifestPath:   filepath.Join(root, LocalVolumeAgentManifest),
		SkipKinds:      []string{"DaemonSet"},
		KubeconfigPath: kubeconfigPath,
	})
	if err != nil {
		return "", err
	}
	return "system:serviceaccount:" + install.Namespace + ":" + install.ServiceAccount, nil
}

// LocalVolumeAgentOptions configures StartLocalVolumeAgent.
type LocalVolumeAgentOptions struct {
	// BinDir holds local-volume-agent (`make build`). Defaults to
	// DefaultBinDir().
	BinDir string
	// NodeName is --node-name; required.
	NodeName string
	// SymlinkRoot is --symlink-root; required (a test's temporary dir).
	SymlinkRoot string
	// Kubeconfig is --kubeconfig; required.
	Kubeconfig string
	// LogFile receives the agent's output; required.
	LogFile string
	// Resync is --resync. Defaults to 2s.
	Resync time.Duration
	// Verbosity is -v. Defaults to 4.
	Verbosity int
	// ExtraArgs are appended.
	ExtraArgs []string
}

// StartLocalVolumeAgent runs the node agent as a process, seeing this
// machine's block devices and mounts (/proc/self/mountinfo: it runs in this
// mount namespace). Stop, Kill and Restart it through the returned Process.
func StartLocalVolumeAgent(ctx context.Context, opts LocalVolumeAgentOptions) (*Process, error) {
	if opts.NodeName == "" || opts.SymlinkRoot == "" || opts.Kubeconfig == "" || opts.LogFile == "" {
		return nil, fmt.Errorf("LocalVolumeAgentOptions needs NodeName, SymlinkRoot, Kubeconfig and LogFile")
	}
	if opts.BinDir == "" {
		dir, err := DefaultBinDir()
		if err != nil {
			return nil, err
		}
		opts.BinDir = dir
	}
	if err := checkBinaries(opts.BinDir, "local-volume-agent"); err != nil {
		return nil, fmt.Errorf("%w (binaries: `make build`)", err)
	}
	if opts.Resync <= 0 {
		opts.Resync = 2 * time.Second
	}
	if opts.Verbosity == 0 {
		opts.Verbosity = 4
	}
	args := []string{
		"--node-name=" + opts.NodeName,
		"--symlink-root=" + opts.SymlinkRoot,
		"--mountinfo-path=/proc/self/mountinfo",
		"--resync=" + opts.Resync.String(),
		"--kubeconfig=" + opts.Kubeconfig,
		"-v=" + strconv.Itoa(opts.Verbosity),
	}
	return StartProcess(ctx, ProcessOptions{
		Name: "local-volume-agent",
		Path: filepath.Join(opts.BinDir, "local-volume-agent"),
		Args: append(args, opts.ExtraArgs...),
		// Like the sidecar, never let a developer's $KUBECONFIG win.
		Env:     []string{"KUBECONFIG=" + opts.Kubeconfig},
		LogFile: opts.LogFile,
	})
}
