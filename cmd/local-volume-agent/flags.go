package main

import (
	"flag"
	"fmt"
	"io"

	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
)

// parseFlags parses args (without the program name) and validates the
// result. getenv supplies the NODE_NAME default. It returns flag.ErrHelp for
// -h/--help. With --version it skips validation, so the version can always
// be printed.
func parseFlags(args []string, getenv func(string) string) (*config, error) {
	cfg := &config{}
	fs := newFlagSet(cfg, getenv(nodeNameEnv))
	if err := fs.Parse(args); err != nil {
		return nil, cmdutil.FlagError(err)
	}
	// The standard parser stops at the first non-flag, which would silently
	// drop every flag after it.
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: flags take their value as --name=value", fs.Arg(0))
	}
	if cfg.showVersion {
		return cfg, nil
	}
	if errs := cfg.validate(); len(errs) > 0 {
		return nil, cmdutil.JoinOneLine(errs)
	}
	return cfg, nil
}

// printUsage writes the flag help to w, spelling flags with two dashes.
func printUsage(w io.Writer) {
	cmdutil.PrintUsage(w, newFlagSet(&config{}, ""))
}

// newFlagSet registers every flag on a fresh set bound to cfg.
func newFlagSet(cfg *config, envNodeName string) *flag.FlagSet {
	fs := flag.NewFlagSet("local-volume-agent", flag.ContinueOnError)
	// Errors are returned, not printed; help is printed by the caller.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}

	klog.InitFlags(fs)

	fs.BoolVar(&cfg.showVersion, "version", false, "Show version.")
	fs.StringVar(&cfg.nodeName, "node-name", envNodeName, "Name of the node the agent runs on. Defaults to the "+nodeNameEnv+" environment variable; required.")
	fs.StringVar(&cfg.symlinkRoot, "symlink-root", defaultSymlinkRoot, "Host folder of the <storageClass>/<device> symlinks that the local PVs point at. Absolute, not /.")
	fs.StringVar(&cfg.mountInfoPath, "mountinfo-path", defaultMountInfoPath, "mountinfo file listing the host's mounts; a device mounted there is never used or wiped. The default needs hostPID in a container.")
	fs.StringVar(&cfg.kube.Master, "master", "", "Master URL to build a client config from. Either this or kubeconfig needs to be set if the agent is being run out of cluster.")
	fs.StringVar(&cfg.kube.Kubeconfig, "kubeconfig", "", "Absolute path to the kubeconfig file. Either this or master needs to be set if the agent is being run out of cluster.")
	cfg.kube.QPS = defaultKubeAPIQPS
	fs.Var((*cmdutil.Float32Value)(&cfg.kube.QPS), "kube-api-qps", "QPS to use while communicating with the kubernetes apiserver.")
	fs.IntVar(&cfg.kube.Burst, "kube-api-burst", defaultKubeAPIBurst, "Burst to use while communicating with the kubernetes apiserver.")
	fs.StringVar(&cfg.httpEndpoint, "http-endpoint", "", "The TCP network address where the HTTP server for Prometheus metrics (/metrics) and the health check (/healthz) will listen (example: :8080). Empty disables the server.")
	fs.DurationVar(&cfg.commandTimeout, "command-timeout", defaultCommandTimeout, "Bound of each lsblk, blkid and wipefs run.")
	fs.DurationVar(&cfg.resync, "resync", defaultResync, "How often every LocalVolume, LocalVolumeSet and PV is synced again, which also discovers new disks.")
	return fs
}
