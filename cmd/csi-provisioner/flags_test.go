package main

import (
	"errors"
	"flag"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/cmdutil"
	"github.com/csi-protect/external-provisioner/pkg/features"
	"github.com/csi-protect/external-provisioner/pkg/volumename"
)

// upstreamDefaults is every flag of upstream external-provisioner v5.1.0
// through v6.3.0 (besides the logging flags) with its default as the flag
// package prints it.
var upstreamDefaults = map[string]string{
	"master":                            "",
	"kubeconfig":                        "",
	"csi-address":                       "/run/csi/socket",
	"volume-name-prefix":                "pvc",
	"volume-name-uuid-length":           "-1",
	"version":                           "false",
	"retry-interval-start":              "1s",
	"retry-interval-max":                "5m0s",
	"worker-threads":                    "100",
	"cloning-protection-threads":        "1",
	"capacity-threads":                  "1",
	"timeout":                           "10s",
	"leader-election":                   "false",
	"leader-election-namespace":         "",
	"strict-topology":                   "false",
	"immediate-topology":                "true",
	"extra-create-metadata":             "false",
	"metrics-address":                   "",
	"http-endpoint":                     "",
	"metrics-path":                      "/metrics",
	"enable-pprof":                      "false",
	"leader-election-lease-duration":    "15s",
	"leader-election-renew-deadline":    "10s",
	"leader-election-retry-period":      "5s",
	"default-fstype":                    "",
	"kube-api-qps":                      "5",
	"kube-api-burst":                    "10",
	"kube-api-capacity-qps":             "1",
	"kube-api-capacity-burst":           "5",
	"enable-capacity":                   "false",
	"capacity-for-immediate-binding":    "false",
	"capacity-poll-interval":            "1m0s",
	"capacity-ownerref-level":           "1",
	"node-deployment":                   "false",
	"node-deployment-immediate-binding": "true",
	"node-deployment-base-delay":        "20s",
	"node-deployment-max-delay":         "1m0s",
	"controller-publish-readonly":       "false",
	"prevent-volume-mode-conversion":    "true",
	"feature-gates":                     "",
	// Added in v5.2 to v6.3.
	"automaxprocs":                   "false",
	"leader-election-labels":         "",
	"snapshot-orphan-sweep-interval": "5m0s",
}

// upstreamLoggingDefaults are component-base's logging flags, which
// upstream registers since v5.2 (v5.1.0 had klog's, which stay).
var upstreamLoggingDefaults = map[string]string{
	"logging-format":            "text",
	"log-flush-frequency":       "5s",
	"v":                         "0",
	"vmodule":                   "",
	"log-text-split-stream":     "false",
	"log-text-info-buffer-size": "0",
	"log-json-split-stream":     "false",
	"log-json-info-buffer-size": "0",
}

// ownDefaults are this project's flags, which upstream does not have. Each
// only tunes a feature that is off unless its gate is turned on, so an
// upstream command line keeps its meaning.
var ownDefaults = map[string]string{
	"protection-threads":           "16",
	"local-volume-cleanup-threads": "1",
	"protection-scope":             "driver",
	"kube-api-protection-qps":      "0",
	"kube-api-protection-burst":    "0",
	"kube-api-events-qps":          "0",
	"kube-api-events-burst":        "0",
	"orphan-audit-interval":        "0s",
	"orphan-audit-grace-period":    "10m0s",
	"volume-retention":             "0s",
	"prepare-rollback":             "",
	"volume-name-template":         "",
	"volume-name-max-length":       "63",
	"claim-parameter-templates":    "false",
	"adaptive-concurrency":         "false",
	"claim-labels-to-volume":       "",
}

// klogFlagNames are klog's own flags, which upstream v5.1.0 registered.
func klogFlagNames() map[string]bool {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	return names
}

func TestFlagSetMatchesUpstream(t *testing.T) {
	fs, _ := newFlagSet(newConfig())
	klogFlags := klogFlagNames()

	for name, def := range upstreamLoggingDefaults {
		if f := fs.Lookup(name); f == nil || f.DefValue != def {
			t.Errorf("logging flag --%s: got %v, want default %q", name, f, def)
		}
	}
	for name, def := range upstreamDefaults {
		f := fs.Lookup(name)
		if f == nil {
			t.Errorf("--%s is missing", name)
			continue
		}
		if f.DefValue != def {
			t.Errorf("--%s default %q, upstream %q", name, f.DefValue, def)
		}
	}
	for name, def := range ownDefaults {
		if f := fs.Lookup(name); f == nil || f.DefValue != def {
			t.Errorf("--%s: got %v, want default %q", name, f, def)
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		_, upstream := upstreamDefaults[f.Name]
		_, own := ownDefaults[f.Name]
		_, logging := upstreamLoggingDefaults[f.Name]
		if !upstream && !own && !logging && !klogFlags[f.Name] {
			t.Errorf("--%s is neither an upstream flag nor one of ours", f.Name)
		}
	})
	for _, name := range []string{"v", "vmodule", "logtostderr", "log_file"} {
		if fs.Lookup(name) == nil {
			t.Errorf("klog flag --%s is missing", name)
		}
	}
}

func TestDefaults(t *testing.T) {
	cfg, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		csiAddress:                     "/run/csi/socket",
		timeout:                        10 * time.Second,
		kube:                           cmdutil.KubeOptions{QPS: 5, Burst: 10},
		leaseDuration:                  15 * time.Second,
		renewDeadline:                  10 * time.Second,
		retryPeriod:                    5 * time.Second,
		metricsPath:                    "/metrics",
		provisioningThreads:            100,
		claimProtectionThreads:         1,
		volumeProtectionThreads:        16,
		localVolumeCleanupThreads:      1,
		protectionScope:                "driver",
		retryIntervalStart:             time.Second,
		retryIntervalMax:               5 * time.Minute,
		volumeNamePrefix:               "pvc",
		volumeNameUUIDLength:           -1,
		immediateTopology:              true,
		preventVolumeModeConversion:    true,
		capacityThreads:                1,
		kubeAPICapacityQPS:             1,
		kubeAPICapacityBurst:           5,
		capacityPollInterval:           time.Minute,
		capacityOwnerrefLevel:          1,
		nodeDeploymentImmediateBinding: true,
		nodeDeploymentBaseDelay:        20 * time.Second,
		nodeDeploymentMaxDelay:         time.Minute,
		snapshotOrphanSweepInterval:    5 * time.Minute,
		orphanAuditGracePeriod:         10 * time.Minute,
		volumeNameMaxLength:            volumename.DefaultMaxLength,
	}
	want.gates = cfg.gates
	want.logging = logsapi.NewLoggingConfiguration()
	if !reflect.DeepEqual(*cfg, want) {
		t.Errorf("defaults differ:\n got %+v\nwant %+v", *cfg, want)
	}
	if !cfg.gates.Enabled(features.Topology) || !cfg.gates.Enabled(features.HonorPVReclaimPolicy) {
		t.Error("Topology and HonorPVReclaimPolicy must be on by default")
	}
	if cfg.httpAddress() != "" {
		t.Error("the diagnostics server must be off by default")
	}
}

func TestTypicalCommandLine(t *testing.T) {
	cfg, err := parseFlags([]string{
		"--csi-address=/csi/csi.sock",
		"--v=5",
		"--feature-gates=Topology=true",
		"--leader-election",
		"--extra-create-metadata",
		"--timeout=60s",
	})
	if err != nil {
		t.Fatal(err)
	}

	if cfg.csiAddress != "/csi/csi.sock" {
		t.Errorf("csi-address %q", cfg.csiAddress)
	}
	if !cfg.leaderElection || !cfg.extraCreateMetadata {
		t.Error("--leader-election and --extra-create-metadata must be on")
	}
	if cfg.timeout != time.Minute {
		t.Errorf("timeout %s", cfg.timeout)
	}
	if !cfg.gates.Enabled(features.Topology) {
		t.Error("Topology must be on")
	}
	// Applied to klog by realMain, not by parsing.
	if cfg.logging.Verbosity != 5 {
		t.Errorf("--v=5 gave verbosity %d", cfg.logging.Verbosity)
	}
}

func TestOtherUpstreamCommandLines(t *testing.T) {
	for _, args := range [][]string{
		// Spellings seen in deployments.
		{"-csi-address=/csi/csi.sock", "-v=2"},
		{"--csi-address", "/csi/csi.sock", "--timeout", "150s"},
		{"--leader-election=true", "--retry-interval-start=500ms", "--feature-gates=HonorPVReclaimPolicy=true", "--prevent-volume-mode-conversion=true", "--default-fstype=ext4", "--immediate-topology=false", "--http-endpoint=:8090"},
		{"--feature-gates=Topology=false", "--feature-gates=HonorPVReclaimPolicy=true", "--strict-topology", "--controller-publish-readonly"},
		{"--prevent-volume-mode-conversion=false"},
		{"--metrics-address=:8080", "--metrics-path=/m"},
		{"--kube-api-qps=20.5", "--kube-api-burst=40", "--worker-threads=10", "--cloning-protection-threads=2"},
		{"--volume-name-prefix=fast", "--volume-name-uuid-length=8"},
		{"--leader-election", "--leader-election-namespace=kube-system", "--leader-election-lease-duration=137s", "--leader-election-renew-deadline=107s", "--leader-election-retry-period=26s"},
		{"--enable-pprof", "--http-endpoint=127.0.0.1:9808"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if _, err := parseFlags(args); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

func TestRepeatedFeatureGatesAccumulate(t *testing.T) {
	cfg, err := parseFlags([]string{"--feature-gates=Topology=false", "--feature-gates=HonorPVReclaimPolicy=false"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.gates.Enabled(features.Topology) || cfg.gates.Enabled(features.HonorPVReclaimPolicy) {
		t.Error("both gates must be off")
	}
	if got := featuresFrom(cfg.gates); got.Topology {
		t.Errorf("features %+v", got)
	}
}

func TestFeaturesFromDefaults(t *testing.T) {
	got := featuresFrom(features.New())
	if !got.Topology || !got.ProvisioningProtection {
		t.Errorf("features %+v", got)
	}
}

// The flags that only tune capacity tracking or node deployment change
// nothing while those are off, so they are accepted at any value then.
func TestTuningFlagsAreAcceptedWhileTheirCapabilityIsOff(t *testing.T) {
	args := []string{
		"--capacity-threads=4",
		"--capacity-for-immediate-binding",
		"--capacity-poll-interval=5m",
		"--capacity-ownerref-level=2",
		"--kube-api-capacity-qps=10",
		"--kube-api-capacity-burst=20",
		"--node-deployment-immediate-binding=false",
		"--node-deployment-base-delay=1s",
		"--node-deployment-max-delay=2m",
	}
	cfg, err := parseFlags(args)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if cfg.kubeAPICapacityQPS != 10 || cfg.capacityPollInterval != 5*time.Minute {
		t.Errorf("values not kept: qps %v, poll %s", cfg.kubeAPICapacityQPS, cfg.capacityPollInterval)
	}
}

func TestTuningFlagsAreCheckedWhileTheirCapabilityIsOn(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--enable-capacity", "--capacity-poll-interval=0"}, "--capacity-poll-interval must be positive"},
		{[]string{"--node-deployment", "--node-deployment-base-delay=2s", "--node-deployment-max-delay=1s"}, "--node-deployment-max-delay (1s) must not be less than --node-deployment-base-delay (2s)"},
		{[]string{"--node-deployment", "--node-deployment-base-delay=-1s"}, "--node-deployment-base-delay must not be negative"},
	} {
		_, err := parseFlags(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

func TestNodeDeploymentIsAccepted(t *testing.T) {
	cfg, err := parseFlags([]string{"--node-deployment", "--node-deployment-base-delay=100ms", "--node-deployment-max-delay=1s", "--node-deployment-immediate-binding=false"})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if !cfg.nodeDeployment || cfg.nodeDeploymentBaseDelay != 100*time.Millisecond || cfg.nodeDeploymentImmediateBinding {
		t.Errorf("values not kept: %+v", cfg)
	}
}

func TestCapacityTrackingIsAccepted(t *testing.T) {
	cfg, err := parseFlags([]string{"--enable-capacity", "--capacity-poll-interval=30s", "--capacity-ownerref-level=-1"})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if !cfg.enableCapacity || cfg.capacityPollInterval != 30*time.Second || cfg.capacityOwnerrefLevel != -1 {
		t.Errorf("values not kept: %+v", cfg)
	}
}

// refusal is a command line that must be refused with one line naming
// flag.
type refusal struct {
	args []string
	flag string
}

func requireRefused(t *testing.T, tests []refusal) {
	t.Helper()
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := parseFlags(tc.args)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.flag) {
				t.Errorf("%q does not name %s", err, tc.flag)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%q is not one line", err)
			}
		})
	}
}

func TestBadValues(t *testing.T) {
	tests := []refusal{
		{[]string{"--worker-threads=-1"}, "--worker-threads"},
		{[]string{"--worker-threads=many"}, "--worker-threads"},
		{[]string{"--cloning-protection-threads=-3"}, "--cloning-protection-threads"},
		{[]string{"--retry-interval-start=0"}, "--retry-interval-start"},
		{[]string{"--retry-interval-max=-1s"}, "--retry-interval-max"},
		{[]string{"--timeout=0"}, "--timeout"},
		{[]string{"--kube-api-protection-qps=-1"}, "--kube-api-protection-qps"},
		{[]string{"--kube-api-protection-burst=-1"}, "--kube-api-protection-burst"},
		{[]string{"--timeout=10"}, "--timeout"},
		{[]string{"--volume-name-uuid-length=0"}, "--volume-name-uuid-length"},
		{[]string{"--volume-name-prefix="}, "--volume-name-prefix"},
		{[]string{"--volume-name-prefix=PVC"}, "--volume-name-prefix"},
		{[]string{"--volume-name-prefix=my_pvc"}, "--volume-name-prefix"},
		{[]string{"--volume-name-prefix=-pvc"}, "--volume-name-prefix"},
		{[]string{"--volume-name-prefix=" + strings.Repeat("p", 220)}, "--volume-name-prefix"},
		{[]string{"--csi-address="}, "--csi-address"},
		{[]string{"--kube-api-qps=fast"}, "--kube-api-qps"},
		{[]string{"--kube-api-burst=-1"}, "--kube-api-burst"},
		{[]string{"--http-endpoint=:8080", "--metrics-path=metrics"}, "--metrics-path"},
		{[]string{"--http-endpoint=:8080", "--metrics-path=/a b"}, "--metrics-path"},
		{[]string{"--http-endpoint=:8080", "--metrics-path=/{x}"}, "--metrics-path"},
		{[]string{"--http-endpoint=:8080", "--metrics-path=/healthz/leader-election"}, "--metrics-path"},
		{[]string{"--leader-election", "--leader-election-lease-duration=10s", "--leader-election-renew-deadline=10s"}, "--leader-election-lease-duration"},
		{[]string{"--leader-election", "--leader-election-renew-deadline=5s", "--leader-election-retry-period=5s"}, "--leader-election-renew-deadline"},
		{[]string{"--leader-election", "--leader-election-retry-period=0s"}, "--leader-election-retry-period"},
		{[]string{"--leader-election=maybe"}, "--leader-election"},
		{[]string{"--feature-gates=NoSuchGate=true"}, "NoSuchGate"},
		{[]string{"--feature-gates=Topology"}, "Topology"},
		{[]string{"--protection-threads=0"}, "--protection-threads"},
		{[]string{"--local-volume-cleanup-threads=0"}, "--local-volume-cleanup-threads"},
		{[]string{"--protection-scope=cluster"}, "--protection-scope"},
		{[]string{"--orphan-audit-interval=-1m"}, "--orphan-audit-interval"},
		{[]string{"--orphan-audit-grace-period=-1s"}, "--orphan-audit-grace-period"},
		{[]string{"--volume-retention=-1h"}, "--volume-retention"},
		{[]string{"--bogus"}, "--bogus"},
		{[]string{"--provisioner=foo"}, "--provisioner"},
		{[]string{"--connection-timeout=15s"}, "--connection-timeout"},
		{[]string{"--timeout"}, "--timeout"},
	}
	requireRefused(t, tests)
}

func TestLeaseTimingsOnlyCheckedWithLeaderElection(t *testing.T) {
	// Upstream ignores them without --leader-election; so do we.
	if _, err := parseFlags([]string{"--leader-election-lease-duration=1s"}); err != nil {
		t.Errorf("refused: %v", err)
	}
}

func TestSeveralErrorsOneLine(t *testing.T) {
	_, err := parseFlags([]string{"--timeout=0", "--kube-api-burst=-1"})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"--timeout", "--kube-api-burst"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("%q is not one line", err)
	}
}

func TestMetricsAddressConflict(t *testing.T) {
	_, err := parseFlags([]string{"--metrics-address=:8080", "--http-endpoint=:8081"})
	if err == nil {
		t.Fatal("accepted")
	}
	if !strings.Contains(err.Error(), "--metrics-address") || !strings.Contains(err.Error(), "--http-endpoint") {
		t.Errorf("%q must name both flags", err)
	}

	cfg, err := parseFlags([]string{"--metrics-address=:8080"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.httpAddress() != ":8080" {
		t.Errorf("deprecated --metrics-address must still serve, got %q", cfg.httpAddress())
	}
	cfg, err = parseFlags([]string{"--http-endpoint=:8081"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.httpAddress() != ":8081" {
		t.Errorf("got %q", cfg.httpAddress())
	}
}

func TestVersionSkipsValidation(t *testing.T) {
	cfg, err := parseFlags([]string{"--version", "--timeout=0"})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.showVersion {
		t.Error("showVersion not set")
	}
}

func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		if _, err := parseFlags([]string{arg}); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%s: got %v", arg, err)
		}
	}
}

func TestProtectionAndEventsClientLimits(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		limits    func(*config) clientLimits
		want      clientLimits
		rationale string
	}{
		{nil, (*config).protectionLimits, clientLimits{10, 20}, "twice upstream's default 5 QPS and 10 burst"},
		{[]string{"--kube-api-qps=200", "--kube-api-burst=400"}, (*config).protectionLimits, clientLimits{400, 800}, "twice a tuned main client"},
		{[]string{"--kube-api-protection-qps=3", "--kube-api-protection-burst=4"}, (*config).protectionLimits, clientLimits{3, 4}, "set explicitly"},
		{[]string{"--kube-api-qps=50", "--kube-api-protection-burst=7"}, (*config).protectionLimits, clientLimits{100, 7}, "one set, the other derived"},
		{nil, (*config).eventLimits, clientLimits{10, 20}, "twice upstream's default 5 QPS and 10 burst"},
		{[]string{"--kube-api-qps=200", "--kube-api-burst=400"}, (*config).eventLimits, clientLimits{400, 800}, "twice a tuned main client"},
		{[]string{"--kube-api-events-qps=3", "--kube-api-events-burst=4"}, (*config).eventLimits, clientLimits{3, 4}, "set explicitly"},
		{[]string{"--kube-api-events-qps=3", "--kube-api-events-burst=4"}, (*config).protectionLimits, clientLimits{10, 20}, "the other client's flags"},
	} {
		cfg, err := parseFlags(tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := tc.limits(cfg); got != tc.want {
			t.Errorf("%v: client %+v; want %+v (%s)", tc.args, got, tc.want, tc.rationale)
		}
	}
}

// warningsOf are the messages of cfg's start-up warnings, one line.
func warningsOf(cfg *config) string {
	var msgs []string
	for _, w := range cfg.warnings() {
		msgs = append(msgs, w.msg)
	}
	return strings.Join(msgs, " | ")
}

// Upstream v6.3.0 starts with each of these command lines, silently; so
// does this sidecar, with a warning of what upstream leaves unsaid.
func TestUpstreamStartsWithTheseSoDoWe(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		wantWarning string
		check       func(*config) bool
	}{
		// pflag ignores arguments that are not flags and parses the flags
		// after them: "false" does not turn leader election off.
		{[]string{"--leader-election", "false", "--timeout=1m"}, "not flags",
			func(c *config) bool { return c.leaderElection && c.timeout == time.Minute }},
		{[]string{"stray", "--timeout=1m", "--", "--worker-threads=7"}, "not flags",
			func(c *config) bool {
				return c.timeout == time.Minute && c.provisioningThreads == defaultWorkerThreads &&
					slices.Equal(c.ignoredArgs, []string{"stray", "--worker-threads=7"})
			}},
		// Gates of the API server that upstream's gate accepts.
		{[]string{"--feature-gates=WatchList=false,APIServerTracing=true", "--feature-gates=KMSv1=true"}, "no effect",
			func(c *config) bool {
				return slices.Equal(setServerGates(c.gates), []string{"APIServerTracing", "KMSv1", "WatchList"})
			}},
		// The library runs no worker: nothing is provisioned, as upstream.
		{[]string{"--worker-threads=0"}, "--worker-threads=0", func(c *config) bool { return c.provisioningThreads == 0 }},
		{[]string{"--cloning-protection-threads=0"}, "--cloning-protection-threads=0", nil},
		{[]string{"--enable-capacity", "--capacity-threads=0"}, "--capacity-threads=0", nil},
		// Upstream panics at the first claim with these; here -5 names
		// volumes as -1 does, and 40 fails each claim before CreateVolume.
		{[]string{"--volume-name-uuid-length=-5"}, "whole claim UID", nil},
		{[]string{"--volume-name-uuid-length=40"}, "every claim fails", nil},
		// A prefix of a bad name with a length that makes no name at all.
		{[]string{"--volume-name-uuid-length=40", "--volume-name-prefix=PVC"}, "every claim fails", nil},
		// Backing off never exceeds the maximum.
		{[]string{"--retry-interval-start=10m"}, "--retry-interval-start exceeds", nil},
		// The Lease cannot be taken there: this instance never leads.
		{[]string{"--leader-election", "--leader-election-namespace=Kube_System"}, "never leads", nil},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cfg, err := parseFlags(tc.args)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got := warningsOf(cfg); !strings.Contains(got, tc.wantWarning) {
				t.Errorf("warnings %q, want one saying %q", got, tc.wantWarning)
			}
			if tc.check != nil && !tc.check(cfg) {
				t.Errorf("configuration %+v", cfg)
			}
		})
	}
}

// These upstream starts with, but running would create volumes that no PV
// can ever name, which nothing then deletes: refused.
func TestRefusedWhereRunningWouldLeakVolumes(t *testing.T) {
	for _, args := range [][]string{
		// Every volume would be named "pvc-".
		{"--volume-name-uuid-length=0"},
		{"--volume-name-prefix=PVC"},
		{"--volume-name-prefix=my_pvc"},
		{"--volume-name-prefix=pvc.", "--volume-name-uuid-length=8"},
		{"--volume-name-prefix=" + strings.Repeat("p", 220)},
	} {
		if _, err := parseFlags(args); err == nil || !strings.Contains(err.Error(), "--volume-name-") {
			t.Errorf("%v: got %v, want a refusal naming the flag", args, err)
		}
	}
}

func TestNoWarningsByDefault(t *testing.T) {
	cfg, err := parseFlags([]string{"--leader-election", "--leader-election-namespace=kube-system", "--feature-gates=Topology=true"})
	if err != nil {
		t.Fatal(err)
	}
	if got := warningsOf(cfg); got != "" {
		t.Errorf("warnings %q", got)
	}
}
