// Command local-volume-agent is the node agent of the local-volume feature:
// on the node it runs on, it turns the devices that LocalVolume and
// LocalVolumeSet objects select into local PersistentVolumes, and wipes and
// deletes them when they are released (package
// github.com/csi-protect/external-provisioner/pkg/localvolume/agent). It
// runs as a privileged DaemonSet; see
// deploy/kubernetes/local-volume-agent.yaml.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
	cfg, err := parseFlags(args[1:], getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(stdout)
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", filepath.Base(args[0]), err)
		return 1
	case cfg.showVersion:
		fmt.Fprintln(stdout, args[0], version)
		return 0
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
