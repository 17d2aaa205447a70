package main

import (
	"flag"
	"fmt"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json
	"k8s.io/klog/v2"
)

// addLoggingFlags registers the logging flags of both upstream lines:
// component-base's (v5.2 and later: --logging-format, --log-flush-frequency,
// -v, --vmodule, the split-stream and buffer options) and klog's own (v5.1.0
// called klog.InitFlags: --logtostderr, --log_dir, --stderrthreshold, ...).
// -v and --vmodule are component-base's, which hands them on to klog. It
// returns the names of klog's own flags.
func addLoggingFlags(fs *flag.FlagSet, logging *logsapi.LoggingConfiguration) []string {
	logsapi.AddGoFlags(logging, fs)
	var klogFlags flag.FlagSet
	klog.InitFlags(&klogFlags)
	var names []string
	klogFlags.VisitAll(func(f *flag.Flag) {
		if fs.Lookup(f.Name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
			names = append(names, f.Name)
		}
	})
	return names
}

// changedKlogFlags lists the klog flags of fs whose value is not klog's
// default.
func changedKlogFlags(fs *flag.FlagSet, klogFlags []string) []string {
	var changed []string
	for _, name := range klogFlags {
		if f := fs.Lookup(name); f.Value.String() != f.DefValue {
			changed = append(changed, name)
		}
	}
	return changed
}

// validateLogging checks the logging flags against the gates without
// applying them, so that parsing has no process-wide effect. klog's own
// flags only steer klog's text output: with another format they would be
// silently ignored, so they are refused, as component-base refuses
// --vmodule there.
func validateLogging(cfg *config) error {
	errs := logsapi.Validate(cfg.logging, cfg.gates, nil).ToAggregate()
	if cfg.logging.Format != logsapi.DefaultLogFormat && len(cfg.changedKlogFlags) > 0 {
		errs = utilerrors.NewAggregate([]error{errs, fmt.Errorf("--logging-format=%s does not honour klog's --%s", cfg.logging.Format, strings.Join(cfg.changedKlogFlags, ", --"))})
	}
	if errs != nil {
		return fmt.Errorf("logging flags: %w", errs)
	}
	return nil
}

// applyLogging installs the configured log format (text or JSON) as klog's
// logger. It may be called once per process.
func applyLogging(cfg *config) error {
	return logsapi.ValidateAndApply(cfg.logging, cfg.gates)
}

// automaxprocsNote is logged when --automaxprocs is set. Upstream sets
// GOMAXPROCS from the container's CPU quota with go.uber.org/automaxprocs;
// since Go 1.25 the runtime does that itself, and keeps following the quota
// when it changes, which a fixed setting would stop.
const automaxprocsNote = "--automaxprocs is accepted for compatibility: the Go runtime already sets GOMAXPROCS from the container's CPU limit"
