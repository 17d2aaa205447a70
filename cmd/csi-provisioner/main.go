// Command csi-provisioner is a Kubernetes CSI sidecar that provisions and
// deletes volumes through a CSI driver. Its command line is that of upstream
// external-provisioner v5.1.0 through v6.3.0.
package main

import (
	"errors"
	"flag"
	"io"
	"os"

	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "unknown"

func main() {
	os.Exit(realMain(os.Args, os.Stdout, os.Stderr))
}

// realMain is main without os.Exit: it returns the exit code.
func realMain(args []string, stdout, stderr io.Writer) int {
	inv := cmdutil.Invocation{Args: args, Stdout: stdout, Stderr: stderr}
	cfg, err := parseFlags(args[1:])
	if err != nil && rollbackAsked(args[1:]) && !errors.Is(err, flag.ErrHelp) {
		// A script reads exit 1 as "not ready"; its typo is not that.
		inv.Fail(err)
		return exitRollbackFlagError
	}
	if code, end := inv.EndBeforeRun(err, err == nil && cfg.showVersion, version, printUsage); end {
		return code
	}

	if err := applyLogging(cfg); err != nil {
		return inv.Fail(err)
	}
	defer klog.Flush()

	ctx, stop := cmdutil.ShutdownContext()
	defer stop()
	if cfg.automaxprocs {
		klog.FromContext(ctx).Info(automaxprocsNote)
	}
	logWarnings(klog.FromContext(ctx), cfg.warnings())
	if cfg.prepareRollback != "" {
		return prepareRollback(ctx, cfg, inv)
	}
	if err := run(ctx, cfg); err != nil {
		klog.FromContext(ctx).Error(err, "Provisioner failed")
		return 1
	}
	return 0
}
