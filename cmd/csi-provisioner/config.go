package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
	"github.com/csi-protect/external-provisioner/pkg/controller"
	"github.com/csi-protect/external-provisioner/pkg/rollback"
	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

// config is the parsed command line. Names, defaults and meanings follow
// upstream external-provisioner v5.1.0 through v6.3.0.
type config struct {
	showVersion bool
	// ignoredArgs are the arguments that are not flags, which upstream
	// ignores; they are only warned of.
	ignoredArgs []string

	// logging holds component-base's logging flags; applied by realMain.
	logging *logsapi.LoggingConfiguration
	// changedKlogFlags are klog's own flags (upstream v5.1.0's logging
	// flags) set to other than their default.
	changedKlogFlags []string
	// automaxprocs is accepted and only logged (see automaxprocsNote).
	automaxprocs bool

	csiAddress string
	timeout    time.Duration

	kube cmdutil.KubeOptions
	// kubeAPIProtectionQPS and kubeAPIProtectionBurst limit the client of
	// the protection finalizer writes; 0 means twice kube.QPS and
	// kube.Burst (see protectionLimits).
	kubeAPIProtectionQPS   float32
	kubeAPIProtectionBurst int
	// kubeAPIEventsQPS and kubeAPIEventsBurst limit the client that sends
	// events (0: twice the main client's).
	kubeAPIEventsQPS   float32
	kubeAPIEventsBurst int

	leaderElection          bool
	leaderElectionNamespace string
	leaseDuration           time.Duration
	renewDeadline           time.Duration
	retryPeriod             time.Duration
	leaderElectionLabels    map[string]string

	httpEndpoint   string
	metricsAddress string // deprecated alias of httpEndpoint
	metricsPath    string
	enablePprof    bool

	// provisioningThreads drive provisioning and deletion (--worker-threads).
	provisioningThreads uint
	// claimProtectionThreads drive the claim protection controller
	// (--cloning-protection-threads, upstream's name).
	claimProtectionThreads uint
	// Flags of this project, not upstream's. volumeProtectionThreads drive
	// each of the PV and PVC protection controllers (gates PVProtection and
	// PVCProtection), localVolumeCleanupThreads the local volume clean-up
	// controller.
	volumeProtectionThreads   uint
	localVolumeCleanupThreads uint
	protectionScope           string
	retryIntervalStart        time.Duration
	retryIntervalMax          time.Duration

	volumeNamePrefix     string
	volumeNameUUIDLength int
	// volumeNameTemplate, if set, names volumes for the driver, up to
	// volumeNameMaxLength characters (pkg/volumename).
	volumeNameTemplate  string
	volumeNameMaxLength int
	// claimParameterTemplates renders claim tokens in driver parameters;
	// claimLabelsToVolume lists the claim label keys (and prefixes) a new
	// PV gets.
	claimParameterTemplates bool
	claimLabelsToVolume     []string
	// adaptiveConcurrency bounds CreateVolume and DeleteVolume calls in
	// flight by the backend's answers (pkg/adaptive).
	adaptiveConcurrency       bool
	extraCreateMetadata       bool
	strictTopology            bool
	immediateTopology         bool
	defaultFSType             string
	controllerPublishReadOnly bool
	// preventVolumeModeConversion refuses restores that change a snapshot's
	// volume mode unless its content allows it.
	preventVolumeModeConversion bool

	gates featuregate.MutableVersionedFeatureGate

	// snapshotOrphanSweepInterval is the period of the sweep of orphaned
	// volumesnapshot-as-source-protection finalizers; zero sweeps never.
	snapshotOrphanSweepInterval time.Duration

	// orphanAuditInterval is the period of the orphan audit, zero for
	// none; orphanAuditGracePeriod how long a volume stays unaccounted
	// for before the audit reports it.
	orphanAuditInterval    time.Duration
	orphanAuditGracePeriod time.Duration
	// volumeRetention is the recycle bin's default retention, zero for
	// none.
	volumeRetention time.Duration
	// prepareRollback, if set, makes the command check the cluster for
	// a swap back to upstream instead of provisioning (see rollback.go).
	prepareRollback rollback.Mode

	// Capacity tracking (--enable-capacity) and distributed provisioning
	// (--node-deployment); the tuning flags are checked only when on, as
	// upstream ignores them otherwise.
	capacityThreads                uint
	kubeAPICapacityQPS             float32
	kubeAPICapacityBurst           int
	enableCapacity                 bool
	capacityForImmediateBinding    bool
	capacityPollInterval           time.Duration
	capacityOwnerrefLevel          int
	nodeDeployment                 bool
	nodeDeploymentImmediateBinding bool
	nodeDeploymentBaseDelay        time.Duration
	nodeDeploymentMaxDelay         time.Duration
}

// Upstream defaults.
const (
	defaultCSIAddress         = "/run/csi/socket"
	defaultTimeout            = 10 * time.Second
	defaultKubeAPIQPS         = 5
	defaultKubeAPIBurst       = 10
	defaultLeaseDuration      = 15 * time.Second
	defaultRenewDeadline      = 10 * time.Second
	defaultRetryPeriod        = 5 * time.Second
	defaultMetricsPath        = "/metrics"
	defaultWorkerThreads      = 100
	defaultCloningThreads     = 1
	defaultProtectionThreads  = 16
	defaultLocalVolumeThreads = 1
	defaultProtectionScope    = protectionScopeDriver
	defaultRetryIntervalStart = time.Second
	defaultRetryIntervalMax   = 5 * time.Minute
	defaultVolumeNamePrefix   = "pvc"
	defaultUUIDLength         = -1

	defaultSnapshotOrphanSweep     = 5 * time.Minute
	defaultOrphanAuditGracePeriod  = 10 * time.Minute
	defaultCapacityThreads         = 1
	defaultKubeAPICapacityQPS      = 1
	defaultKubeAPICapacityBurst    = 5
	defaultCapacityPollInterval    = time.Minute
	defaultCapacityOwnerrefLevel   = 1
	defaultNodeDeploymentBaseDelay = 20 * time.Second
	defaultNodeDeploymentMaxDelay  = 60 * time.Second
)

// maxUUIDLength is the length of a claim UID without dashes, the most a
// truncated UUID can keep.
const maxUUIDLength = 32

// httpAddress is where the diagnostics server listens, "" for nowhere.
func (c *config) httpAddress() string {
	if c.metricsAddress != "" {
		return c.metricsAddress
	}
	return c.httpEndpoint
}

// validate checks values that parse but cannot work. Every message names the
// flag at fault.
func (c *config) validate() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if strings.TrimSpace(c.csiAddress) == "" {
		add("--csi-address must not be empty")
	}
	errs = cmdutil.AppendFailed(errs,
		cmdutil.Positive("--timeout", c.timeout),
		cmdutil.NotNegative("--kube-api-burst", c.kube.Burst),
		cmdutil.NotNegative("--kube-api-protection-qps", c.kubeAPIProtectionQPS),
		cmdutil.NotNegative("--kube-api-protection-burst", c.kubeAPIProtectionBurst),
		cmdutil.NotNegative("--kube-api-events-qps", c.kubeAPIEventsQPS),
		cmdutil.NotNegative("--kube-api-events-burst", c.kubeAPIEventsBurst),
		cmdutil.NotNegative("--orphan-audit-interval", c.orphanAuditInterval),
		cmdutil.NotNegative("--volume-retention", c.volumeRetention),
		cmdutil.NotNegative("--orphan-audit-grace-period", c.orphanAuditGracePeriod),
	)

	if c.metricsAddress != "" && c.httpEndpoint != "" {
		add("only one of --metrics-address and --http-endpoint can be set")
	}
	if c.httpAddress() != "" {
		if err := validateMetricsPath(c.metricsPath); err != nil {
			errs = append(errs, err)
		}
	}

	// --worker-threads=0 and --cloning-protection-threads=0 start, as
	// upstream; see warnings.
	if c.volumeProtectionThreads == 0 {
		add("--protection-threads must be at least 1")
	}
	if c.localVolumeCleanupThreads == 0 {
		add("--local-volume-cleanup-threads must be at least 1")
	}
	if c.protectionScope != protectionScopeDriver && c.protectionScope != protectionScopeAll {
		add("--protection-scope must be %q or %q, got %q", protectionScopeDriver, protectionScopeAll, c.protectionScope)
	}
	// Upstream starts with these too, but zero or negative intervals
	// would retry failures in a busy loop against the driver and the API
	// server. A start above the maximum only waits the maximum (warnings).
	errs = cmdutil.AppendFailed(errs, cmdutil.Positive("--retry-interval-start", c.retryIntervalStart), cmdutil.Positive("--retry-interval-max", c.retryIntervalMax))

	errs = append(errs, c.validateVolumeName()...)
	errs = append(errs, c.validateClaimMetadata()...)
	errs = append(errs, c.validateCapacity()...)
	errs = append(errs, c.validateNodeDeployment()...)

	if c.leaderElection {
		errs = append(errs, c.validateLeaderElection()...)
	}

	if err := validateLogging(c); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// reservedPaths are served next to the metrics; registering one twice
// would panic.
var reservedPaths = []string{
	"/healthz/leader-election",
	"/debug/pprof/", "/debug/pprof/cmdline", "/debug/pprof/profile", "/debug/pprof/symbol", "/debug/pprof/trace",
}

// validateMetricsPath checks that the path is a plain URL path: the HTTP mux
// would read spaces as a method and braces as wildcards.
func validateMetricsPath(path string) error {
	switch {
	case !strings.HasPrefix(path, "/"):
		return fmt.Errorf("--metrics-path must start with \"/\", got %q", path)
	case strings.ContainsAny(path, " \t{}"):
		return fmt.Errorf("--metrics-path %q must not contain spaces or braces", path)
	case slices.Contains(reservedPaths, path):
		return fmt.Errorf("--metrics-path %q is already used by another handler", path)
	}
	return nil
}

// validateVolumeName refuses volume names no PV can take. Upstream checks
// none: it would create the driver's volume with CreateVolume, then fail
// to store its PV forever, and the volume would outlive its claim with
// nothing to delete it. Lengths that name no volume at all start (see
// warnings).
func (c *config) validateVolumeName() []error {
	n := c.volumeNameUUIDLength
	if n == 0 {
		// Upstream would name every volume "<prefix>-": CreateVolume would
		// hand the first claim's volume to every other.
		return []error{fmt.Errorf("--volume-name-uuid-length=0 would give every volume the same name %q, which no PV can take: use -1 (the whole UID) or 1 to %d", c.volumeNamePrefix+"-", maxUUIDLength)}
	}
	if c.volumeNamePrefix == "" {
		// Upstream fails every claim instead; the provisioner here does
		// not start without a prefix.
		return []error{fmt.Errorf("--volume-name-prefix must not be empty")}
	}
	if n > maxUUIDLength {
		// No name is made: every claim fails before CreateVolume.
		return nil
	}
	uid := "0123456789abcdef0123456789abcdef"
	if n < 0 {
		uid = "01234567-89ab-cdef-0123-456789abcdef"
	} else {
		uid = uid[:n]
	}
	if msgs := validation.IsDNS1123Subdomain(c.volumeNamePrefix + "-" + uid); len(msgs) > 0 {
		return []error{fmt.Errorf("--volume-name-prefix %q does not give valid volume names: %s", c.volumeNamePrefix, strings.Join(msgs, "; "))}
	}
	return nil
}

// validateClaimMetadata checks the name template and the label keys at
// start: a template that could give two claims one name, or a label key no
// label can have, is a mistake no claim should find.
func (c *config) validateClaimMetadata() []error {
	var errs []error
	if c.volumeNameTemplate != "" && c.volumeNameMaxLength < volumename.MinMaxLength {
		errs = append(errs, fmt.Errorf("--volume-name-max-length must be at least %d, got %d", volumename.MinMaxLength, c.volumeNameMaxLength))
	} else if c.volumeNameTemplate != "" {
		if _, err := volumename.New(volumename.Options{
			Prefix: c.volumeNamePrefix, UUIDLength: c.volumeNameUUIDLength,
			Template: c.volumeNameTemplate, MaxLength: c.volumeNameMaxLength,
		}); err != nil {
			errs = append(errs, fmt.Errorf("--volume-name-template: %w", err))
		}
	}
	if _, err := controller.ParseLabelKeys(c.claimLabelsToVolume); err != nil {
		errs = append(errs, fmt.Errorf("--claim-labels-to-volume: %w", err))
	}
	return errs
}

// validateLeaderElection applies client-go's rules up front so a bad value
// fails at start-up rather than after connecting to the driver.
func (c *config) validateLeaderElection() []error {
	// An invalid --leader-election-namespace starts, as upstream; see
	// warnings. Bad timings are refused: client-go's elector panics on
	// them, upstream's too.
	errs := cmdutil.AppendFailed(nil,
		cmdutil.Positive("--leader-election-lease-duration", c.leaseDuration),
		cmdutil.Positive("--leader-election-renew-deadline", c.renewDeadline),
		cmdutil.Positive("--leader-election-retry-period", c.retryPeriod),
	)
	if len(errs) > 0 {
		return errs
	}
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.leaseDuration <= c.renewDeadline {
		add("--leader-election-lease-duration (%s) must be greater than --leader-election-renew-deadline (%s)", c.leaseDuration, c.renewDeadline)
	}
	// client-go jitters the retry period by up to 20%.
	if float64(c.renewDeadline) <= 1.2*float64(c.retryPeriod) {
		add("--leader-election-renew-deadline (%s) must be greater than 1.2 x --leader-election-retry-period (%s)", c.renewDeadline, c.retryPeriod)
	}
	return errs
}

// Values of --protection-scope: the objects the PV and PVC protection
// controllers look after.
const (
	// protectionScopeDriver: PVs of this driver and the claims it
	// provisions.
	protectionScopeDriver = "driver"
	// protectionScopeAll: every PV and claim, as kube-controller-manager's
	// controllers do.
	protectionScopeAll = "all"
)

// validateCapacity checks the tuning of capacity tracking when it is on.
func (c *config) validateCapacity() []error {
	if !c.enableCapacity {
		return nil
	}
	// --capacity-threads=0 starts, as upstream; see warnings. A poll
	// interval of zero would call GetCapacity in a busy loop.
	return cmdutil.AppendFailed(nil,
		cmdutil.Positive("--capacity-poll-interval", c.capacityPollInterval),
		cmdutil.NotNegative("--kube-api-capacity-burst", c.kubeAPICapacityBurst),
	)
}

// validateNodeDeployment checks the hand-off delays when node deployment
// is on.
func (c *config) validateNodeDeployment() []error {
	if !c.nodeDeployment {
		return nil
	}
	errs := cmdutil.AppendFailed(nil, cmdutil.NotNegative("--node-deployment-base-delay", c.nodeDeploymentBaseDelay))
	if c.nodeDeploymentMaxDelay < c.nodeDeploymentBaseDelay {
		errs = append(errs, fmt.Errorf("--node-deployment-max-delay (%s) must not be less than --node-deployment-base-delay (%s)", c.nodeDeploymentMaxDelay, c.nodeDeploymentBaseDelay))
	}
	return errs
}

// protectionLimits are the QPS and burst of the protection client. By
// default they are twice the main client's: a provisioned volume costs two
// protection writes (the finalizer before CreateVolume and its removal once
// the claim is Bound) for the one PV creation on the main client, so the
// protection writes keep pace with provisioning at any main limit.
func (c *config) protectionLimits() clientLimits {
	return c.twiceMainUnlessSet(c.kubeAPIProtectionQPS, c.kubeAPIProtectionBurst)
}

// eventLimits are the QPS and burst of the events client. By default they
// are twice the main client's: a provisioned volume gets a few events
// (Provisioning, ProvisioningSucceeded, and more on a retry) for its one PV
// creation, and events that wait behind PV writes arrive too late to tell
// anyone anything, or are dropped from a full queue.
func (c *config) eventLimits() clientLimits {
	return c.twiceMainUnlessSet(c.kubeAPIEventsQPS, c.kubeAPIEventsBurst)
}

func (c *config) twiceMainUnlessSet(qps float32, burst int) clientLimits {
	if qps == 0 {
		qps = 2 * c.kube.QPS
	}
	if burst == 0 {
		burst = 2 * c.kube.Burst
	}
	return clientLimits{QPS: qps, Burst: burst}
}
