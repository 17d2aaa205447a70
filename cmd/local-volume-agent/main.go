// Command local-volume-agent is the node agent of the local-volume feature:
// on the node it runs on, it turns the devices that LocalVolume and
// LocalVolumeSet objects select into local PersistentVolumes, and wipes and
// deletes them when they are released (package
// github.com/csi-protect/external-provisioner/pkg/localvolume/agent). It
// runs as a privileged DaemonSet; see
// deploy/kubernetes/local-volume-agent.yaml.
package main

import (
	"io"
	"os"

	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "unknown"

func main() {
	os.Exit(realMain(os.Args, os.Stdout, os.Stderr, os.Getenv))
}

// realMain is main without os.Exit: it returns the exit code.
func realMain(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	inv := cmdutil.Invocation{Args: args, Stdout: stdout, Stderr: stderr}
	cfg, err := parseFlags(args[1:], getenv)
	if code, end := inv.EndBeforeRun(err, err == nil && cfg.showVersion, version, printUsage); end {
		return code
	}

	ctx, stop := cmdutil.ShutdownContext()
	defer stop()

	defer klog.Flush()
	if err := run(ctx, cfg, getenv); err != nil {
		klog.FromContext(ctx).Error(err, "Local volume agent failed")
		return 1
	}
	return 0
}
