package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
	"github.com/csi-protect/external-provisioner/pkg/features"
	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

// parseFlags parses args (without the program name) and validates the result.
// It returns flag.ErrHelp for -h/--help. With --version it skips validation,
// so the version can always be printed.
func parseFlags(args []string) (*config, error) {
	cfg := newConfig()
	fs, klogFlags := newFlagSet(cfg)
	// Arguments that are not flags are ignored, and flags after them
	// still parsed, as with upstream's parser; realMain warns of them.
	ignored, err := cmdutil.ParseInterspersed(fs, args)
	if err != nil {
		return nil, cmdutil.FlagError(err)
	}
	cfg.ignoredArgs = ignored
	if cfg.showVersion {
		return cfg, nil
	}
	cfg.changedKlogFlags = changedKlogFlags(fs, klogFlags)

	if errs := cfg.validate(); len(errs) > 0 {
		return nil, cmdutil.JoinOneLine(errs)
	}
	return cfg, nil
}

// printUsage writes the flag help to w, spelling flags with two dashes.
func printUsage(w io.Writer) {
	fs, _ := newFlagSet(newConfig())
	cmdutil.PrintUsage(w, fs)
}

// newConfig returns a config whose gates and logging options are at their
// defaults, ready for newFlagSet.
func newConfig() *config {
	gates := features.New()
	addServerGates(gates)
	return &config{gates: gates, logging: logsapi.NewLoggingConfiguration()}
}

// newFlagSet registers every flag on a fresh set bound to cfg, and returns
// the names of klog's own flags among them. Help texts are upstream's.
func newFlagSet(cfg *config) (*flag.FlagSet, []string) {
	fs := flag.NewFlagSet("csi-provisioner", flag.ContinueOnError)
	// Errors are returned, not printed; help is printed by the caller.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}

	klogFlags := addLoggingFlags(fs, cfg.logging)
	fs.BoolVar(&cfg.automaxprocs, "automaxprocs", false, "automatically set GOMAXPROCS to match Linux container CPU quota (the Go runtime already does; accepted for compatibility)")

	fs.BoolVar(&cfg.showVersion, "version", false, "Show version.")
	fs.StringVar(&cfg.kube.Master, "master", "", "Master URL to build a client config from. Either this or kubeconfig needs to be set if the provisioner is being run out of cluster.")
	fs.StringVar(&cfg.kube.Kubeconfig, "kubeconfig", "", "Absolute path to the kubeconfig file. Either this or master needs to be set if the provisioner is being run out of cluster.")
	fs.StringVar(&cfg.csiAddress, "csi-address", defaultCSIAddress, "The gRPC endpoint for Target CSI Volume.")
	fs.StringVar(&cfg.volumeNamePrefix, "volume-name-prefix", defaultVolumeNamePrefix, "Prefix to apply to the name of a created volume.")
	fs.IntVar(&cfg.volumeNameUUIDLength, "volume-name-uuid-length", defaultUUIDLength, "Truncates generated UUID of a created volume to this length. Defaults behavior is to NOT truncate.")
	fs.StringVar(&cfg.volumeNameTemplate, "volume-name-template", "", "Template of the name CreateVolume gives the driver, from {{.Namespace}}, {{.Name}}, {{.UID}}, {{.UIDShort}} (8 hex digits) and {{.Prefix}} of the claim, e.g. \"{{.Namespace}}-{{.Name}}-{{.UIDShort}}\". It must hold {{.UID}}, or {{.UIDShort}} with {{.Namespace}} and {{.Name}}. The PV keeps its name. Empty (the default) names the volume as its PV, as upstream.")
	fs.IntVar(&cfg.volumeNameMaxLength, "volume-name-max-length", volumename.DefaultMaxLength, "Longest name --volume-name-template gives; a longer one is cut and ends with a hash of the whole name.")
	fs.BoolVar(&cfg.adaptiveConcurrency, "adaptive-concurrency", false, "Bound the CreateVolume and DeleteVolume calls in flight by what the driver's backend takes: halve the bound when it answers ResourceExhausted or Unavailable, grow it back by one per round of successes, between 1 and --worker-threads. Off (the default) runs up to --worker-threads calls, as upstream.")
	fs.BoolVar(&cfg.claimParameterTemplates, "claim-parameter-templates", false, "Render ${pvc.name}, ${pvc.namespace}, ${pv.name}, ${pvc.labels['<key>']} and ${pvc.annotations['<key>']} in StorageClass parameters passed to CreateVolume. Off by default: it lets claim authors set the values of the parameters the StorageClass names.")
	fs.Var((*cmdutil.ListValue)(&cfg.claimLabelsToVolume), "claim-labels-to-volume", "Comma-separated claim label keys copied to a new PV once, when it is created; a key ending in '*' is a prefix (\"example.com/*\"). Labels of the kubernetes.io and k8s.io domains, other than app.kubernetes.io, are never copied.")
	fs.DurationVar(&cfg.retryIntervalStart, "retry-interval-start", defaultRetryIntervalStart, "Initial retry interval of failed provisioning or deletion. It doubles with each failure, up to retry-interval-max.")
	fs.DurationVar(&cfg.retryIntervalMax, "retry-interval-max", defaultRetryIntervalMax, "Maximum retry interval of failed provisioning or deletion.")
	fs.UintVar(&cfg.provisioningThreads, "worker-threads", defaultWorkerThreads, "Number of provisioner worker threads, in other words nr. of simultaneous CSI calls.")
	fs.UintVar(&cfg.claimProtectionThreads, "cloning-protection-threads", defaultCloningThreads, "Number of simultaneously running threads, handling cloning finalizer removal (and, in this project, provisioning-protection finalizer removal)")
	fs.DurationVar(&cfg.snapshotOrphanSweepInterval, "snapshot-orphan-sweep-interval", defaultSnapshotOrphanSweep, "How often to check for orphaned snapshot source-protection finalizers. Set to 0 to disable the sweep controller.")
	fs.UintVar(&cfg.capacityThreads, "capacity-threads", defaultCapacityThreads, "Number of simultaneously running threads, handling CSIStorageCapacity objects")
	fs.UintVar(&cfg.volumeProtectionThreads, "protection-threads", defaultProtectionThreads, "Number of simultaneously running threads of each of the PV and PVC protection controllers (feature gates PVProtection, PVCProtection).")
	fs.UintVar(&cfg.localVolumeCleanupThreads, "local-volume-cleanup-threads", defaultLocalVolumeThreads, "Number of simultaneously running threads of the LocalVolume and LocalVolumeSet deletion clean-up controller (feature gate LocalVolumeCleanup).")
	fs.StringVar(&cfg.protectionScope, "protection-scope", defaultProtectionScope, "Objects the PV and PVC protection controllers look after: \"driver\" for the PVs of this driver and the claims it provisions, \"all\" for every PV and claim.")
	fs.DurationVar(&cfg.orphanAuditInterval, "orphan-audit-interval", 0, "How often to compare the driver's volumes (ListVolumes) with its PersistentVolumes and report, in a log line and a metric, each volume nothing accounts for. 0 (the default) turns the audit off. It never deletes a volume. Needs a driver with LIST_VOLUMES.")
	fs.DurationVar(&cfg.orphanAuditGracePeriod, "orphan-audit-grace-period", defaultOrphanAuditGracePeriod, "How long a volume stays unaccounted for before the orphan audit reports it; longer than a PV takes to be stored after CreateVolume.")
	fs.DurationVar(&cfg.volumeRetention, "volume-retention", 0, "How long a released volume (its claim deleted, reclaim policy Delete) is kept before DeleteVolume, so that it can be given back to a new claim. 0 (the default) deletes it at once, as upstream. A StorageClass overrides it with the annotation provisioner.storage.kubernetes.io/volume-retention.")
	fs.Var((*rollbackMode)(&cfg.prepareRollback), "prepare-rollback", prepareRollbackHelp)
	fs.DurationVar(&cfg.timeout, "timeout", defaultTimeout, "Timeout for waiting for volume operation (creation, deletion, capacity queries)")

	fs.BoolVar(&cfg.leaderElection, "leader-election", false, "Enables leader election. If leader election is enabled, additional RBAC rules are required. Please refer to the Kubernetes CSI documentation for instructions on setting up these RBAC rules.")
	fs.StringVar(&cfg.leaderElectionNamespace, "leader-election-namespace", "", "Namespace where the leader election resource lives. Defaults to the pod namespace if not set.")
	fs.DurationVar(&cfg.leaseDuration, "leader-election-lease-duration", defaultLeaseDuration, "Duration, in seconds, that non-leader candidates will wait to force acquire leadership. Defaults to 15 seconds.")
	fs.DurationVar(&cfg.renewDeadline, "leader-election-renew-deadline", defaultRenewDeadline, "Duration, in seconds, that the acting leader will retry refreshing leadership before giving up. Defaults to 10 seconds.")
	fs.DurationVar(&cfg.retryPeriod, "leader-election-retry-period", defaultRetryPeriod, "Duration, in seconds, the LeaderElector clients should wait between tries of actions. Defaults to 5 seconds.")
	fs.Var((*cmdutil.LabelsValue)(&cfg.leaderElectionLabels), "leader-election-labels", "List of labels to add to lease when given replica becomes leader. Formatted as a comma seperated list of key:value labels. Example: 'my-label:my-value,my-second-label:my-second-value'")

	fs.BoolVar(&cfg.strictTopology, "strict-topology", false, "Late binding: pass only selected node topology to CreateVolume Request, unlike default behavior of passing aggregated cluster topologies that match with topology keys of the selected node.")
	fs.BoolVar(&cfg.immediateTopology, "immediate-topology", true, "Immediate binding: pass aggregated cluster topologies for all nodes where the CSI driver is available (enabled, the default) or no topology requirements (if disabled).")
	fs.BoolVar(&cfg.extraCreateMetadata, "extra-create-metadata", false, "If set, add pv/pvc metadata to plugin create requests as parameters.")

	fs.StringVar(&cfg.metricsAddress, "metrics-address", "", "(deprecated) The TCP network address where the prometheus metrics endpoint will listen (example: `:8080`). The default is empty string, which means metrics endpoint is disabled. Only one of `--metrics-address` and `--http-endpoint` can be set.")
	fs.StringVar(&cfg.httpEndpoint, "http-endpoint", "", "The TCP network address where the HTTP server for diagnostics, including pprof, metrics and leader election health check, will listen (example: `:8080`). The default is empty string, which means the server is disabled. Only one of `--metrics-address` and `--http-endpoint` can be set.")
	fs.StringVar(&cfg.metricsPath, "metrics-path", defaultMetricsPath, "The HTTP path where prometheus metrics will be exposed. Default is `/metrics`.")
	fs.BoolVar(&cfg.enablePprof, "enable-pprof", false, "Enable pprof profiling on the TCP network address specified by --http-endpoint. The HTTP path is `/debug/pprof/`.")

	fs.StringVar(&cfg.defaultFSType, "default-fstype", "", "The default filesystem type of the volume to provision when fstype is unspecified in the StorageClass. If the default is not set and fstype is unset in the StorageClass, then no fstype will be set")

	cfg.kube.QPS = defaultKubeAPIQPS
	fs.Var((*cmdutil.Float32Value)(&cfg.kube.QPS), "kube-api-qps", "QPS to use while communicating with the kubernetes apiserver. Defaults to 5.0.")
	fs.IntVar(&cfg.kube.Burst, "kube-api-burst", defaultKubeAPIBurst, "Burst to use while communicating with the kubernetes apiserver. Defaults to 10.")
	fs.Var((*cmdutil.Float32Value)(&cfg.kubeAPIProtectionQPS), "kube-api-protection-qps", "QPS of the client of protection (the provisioning-, cloning- and restore-protection finalizers, PV and PVC protection), a budget of its own so that protection never slows provisioning. 0 (the default) means twice --kube-api-qps.")
	fs.IntVar(&cfg.kubeAPIProtectionBurst, "kube-api-protection-burst", 0, "Burst of the client of protection. 0 (the default) means twice --kube-api-burst.")
	fs.Var((*cmdutil.Float32Value)(&cfg.kubeAPIEventsQPS), "kube-api-events-qps", "QPS of the client that sends events, a budget of its own so that events never wait behind PV and claim writes. 0 (the default) means twice --kube-api-qps.")
	fs.IntVar(&cfg.kubeAPIEventsBurst, "kube-api-events-burst", 0, "Burst of the client that sends events. 0 (the default) means twice --kube-api-burst.")

	cfg.kubeAPICapacityQPS = defaultKubeAPICapacityQPS
	fs.Var((*cmdutil.Float32Value)(&cfg.kubeAPICapacityQPS), "kube-api-capacity-qps", "QPS to use for storage capacity updates while communicating with the kubernetes apiserver. Defaults to 1.0.")
	fs.IntVar(&cfg.kubeAPICapacityBurst, "kube-api-capacity-burst", defaultKubeAPICapacityBurst, "Burst to use for storage capacity updates while communicating with the kubernetes apiserver. Defaults to 5.")

	fs.BoolVar(&cfg.enableCapacity, "enable-capacity", false, "This enables producing CSIStorageCapacity objects with capacity information from the driver's GetCapacity call.")
	fs.BoolVar(&cfg.capacityForImmediateBinding, "capacity-for-immediate-binding", false, "Enables producing capacity information for storage classes with immediate binding. Not needed for the Kubernetes scheduler, maybe useful for other consumers or for debugging.")
	fs.DurationVar(&cfg.capacityPollInterval, "capacity-poll-interval", defaultCapacityPollInterval, "How long the external-provisioner waits before checking for storage capacity changes.")
	fs.IntVar(&cfg.capacityOwnerrefLevel, "capacity-ownerref-level", defaultCapacityOwnerrefLevel, "The level indicates the number of objects that need to be traversed starting from the pod identified by the POD_NAME and NAMESPACE environment variables to reach the owning object for CSIStorageCapacity objects: -1 for no owner, 0 for the pod itself, 1 for a StatefulSet or DaemonSet, 2 for a Deployment, etc.")

	fs.BoolVar(&cfg.nodeDeployment, "node-deployment", false, "Enables deploying the external-provisioner together with a CSI driver on nodes to manage node-local volumes.")
	fs.BoolVar(&cfg.nodeDeploymentImmediateBinding, "node-deployment-immediate-binding", true, "Determines whether immediate binding is supported when deployed on each node.")
	fs.DurationVar(&cfg.nodeDeploymentBaseDelay, "node-deployment-base-delay", defaultNodeDeploymentBaseDelay, "Determines how long the external-provisioner sleeps initially before trying to own a PVC with immediate binding.")
	fs.DurationVar(&cfg.nodeDeploymentMaxDelay, "node-deployment-max-delay", defaultNodeDeploymentMaxDelay, "Determines how long the external-provisioner sleeps at most before trying to own a PVC with immediate binding.")
	fs.BoolVar(&cfg.controllerPublishReadOnly, "controller-publish-readonly", false, "This option enables PV to be marked as readonly at controller publish volume call if PVC accessmode has been set to ROX.")

	fs.BoolVar(&cfg.preventVolumeModeConversion, "prevent-volume-mode-conversion", true, "Prevents an unauthorised user from modifying the volume mode when creating a PVC from an existing VolumeSnapshot.")

	fs.Var(&gateValue{gate: cfg.gates}, "feature-gates", "A set of key=value pairs that describe feature gates for alpha/experimental features. "+
		"Options are:\n"+strings.Join(cfg.gates.KnownFeatures(), "\n"))

	return fs, klogFlags
}

// gateValue feeds --feature-gates into a gate. Repeated flags accumulate, as
// with upstream.
type gateValue struct {
	gate featuregate.MutableFeatureGate
}

func (g *gateValue) Set(s string) error { return g.gate.Set(s) }

func (g *gateValue) String() string {
	if g == nil || g.gate == nil {
		return ""
	}
	if s, ok := g.gate.(fmt.Stringer); ok {
		return s.String()
	}
	return ""
}
