package main

import (
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
)

// config is the parsed command line.
type config struct {
	showVersion bool

	nodeName      string
	symlinkRoot   string
	mountInfoPath string

	kube cmdutil.KubeOptions

	httpEndpoint string

	commandTimeout time.Duration
	resync         time.Duration
}

const (
	// nodeNameEnv is where the DaemonSet puts spec.nodeName (downward API).
	nodeNameEnv = "NODE_NAME"

	defaultSymlinkRoot = "/mnt/local-storage"
	// In a container only the host's init process sees the host's mounts;
	// the DaemonSet runs with hostPID so that this is the host's PID 1.
	defaultMountInfoPath  = "/proc/1/mountinfo"
	defaultKubeAPIQPS     = 5
	defaultKubeAPIBurst   = 10
	defaultCommandTimeout = 2 * time.Minute
	defaultResync         = time.Minute
)

// validate checks the values and normalises the paths. Each error names its
// flag.
func (c *config) validate() []error {
	var errs []error
	if c.nodeName == "" {
		errs = append(errs, fmt.Errorf("--node-name is required (or set the %s environment variable)", nodeNameEnv))
	}
	if !filepath.IsAbs(c.symlinkRoot) || filepath.Clean(c.symlinkRoot) == "/" {
		errs = append(errs, fmt.Errorf("--symlink-root must be an absolute path other than /, got %q", c.symlinkRoot))
	} else {
		c.symlinkRoot = filepath.Clean(c.symlinkRoot)
	}
	if !filepath.IsAbs(c.mountInfoPath) {
		errs = append(errs, fmt.Errorf("--mountinfo-path must be an absolute path, got %q", c.mountInfoPath))
	}
	errs = cmdutil.AppendFailed(errs, cmdutil.Positive("--kube-api-qps", c.kube.QPS), cmdutil.Positive("--kube-api-burst", c.kube.Burst))
	if c.httpEndpoint != "" {
		if _, _, err := net.SplitHostPort(c.httpEndpoint); err != nil {
			errs = append(errs, fmt.Errorf("--http-endpoint must be host:port, got %q", c.httpEndpoint))
		}
	}
	return cmdutil.AppendFailed(errs, cmdutil.Positive("--command-timeout", c.commandTimeout), cmdutil.Positive("--resync", c.resync))
}
