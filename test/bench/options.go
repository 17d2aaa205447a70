package bench

import (
	"io"
	"strings"
	"time"
)

// Options configures a benchmark. DefaultOptions and QuickOptions fill every
// field; a caller changes what it needs afterwards.
type Options struct {
	// BinDir holds csi-provisioner and mock-csi-driver; empty means the
	// framework's default (bin/).
	BinDir string
	// ControlPlaneDir holds etcd, kube-apiserver and
	// kube-controller-manager; empty means the framework's default.
	ControlPlaneDir string
	// Quick marks the short mode in the report.
	Quick bool
	// Claims is the number of claims provisioned and deleted per run.
	Claims int
	// Runs is the number of runs per variant. Each run gets a fresh
	// control plane, so runs do not inherit each other's etcd history,
	// audit log or informer caches.
	Runs int
	// Variants are the sidecar configurations compared. Runs interleave
	// them (A, B, A, B, ...) so that drift of the machine hits both alike.
	Variants []Variant
	// SidecarArgs are given to the sidecar in every variant, after the
	// framework's own flags (socket, kubeconfig, --timeout, -v).
	SidecarArgs []string
	// SidecarVerbosity is the sidecar's -v: the shipped Deployment's 2,
	// since the framework's default of 4 dumps objects and would make
	// logging a large part of what is measured.
	SidecarVerbosity int
	// KCMArgs are appended to kube-controller-manager's flags.
	KCMArgs []string
	// Creator is the client that creates and deletes the claims.
	Creator CreatorOptions
	// SkipDeletion ends each run once its claims are provisioned: the
	// largest runs and the slowest client limits would spend most of the
	// benchmark's time deleting, which is measured at other sizes.
	SkipDeletion bool
	// Latencies keeps every claim's latency in the results (for the
	// latency plot) rather than only the percentiles.
	Latencies bool
	// PhaseTimeout bounds each phase (provisioning, deletion). A phase
	// that runs out is reported with what was left, not as a crash.
	PhaseTimeout time.Duration
	// WorkRoot is where each run's work folder is made (logs, socket,
	// cluster data). Empty means the system's temporary folder: the
	// driver's unix socket path must stay short.
	WorkRoot string
	// KeepWorkDirs keeps every run's work folder; a failed run's folder is
	// always kept.
	KeepWorkDirs bool
	// Progress receives one line per step; nil discards them.
	Progress io.Writer
}

// Variant is one sidecar configuration under test.
type Variant struct {
	// Name labels the variant in the report, e.g. "gate on".
	Name string `json:"name"`
	// Args are appended to Options.SidecarArgs.
	Args []string `json:"args"`
	// Env is added to the sidecar's environment.
	Env []string `json:"env,omitempty"`
	// Binary is the sidecar executable; empty means csi-provisioner of
	// Options.BinDir, this repository's. The baseline sets it.
	Binary string `json:"binary,omitempty"`
	// RBACManifest replaces the shipped RBAC of the provisioning runs,
	// each on a fresh stack (framework.SidecarOptions.RBACManifest,
	// relative to the repository root); empty means the shipped one. The
	// memory benchmark runs every variant on one stack whose RBAC is
	// installed once, and ignores it.
	RBACManifest string `json:"rbacManifest,omitempty"`
	// Version is Binary's --version output, for the report.
	Version string `json:"version,omitempty"`
}

// CreatorOptions configures the benchmark's own client. It must never be
// what limits the run, so its rate limit is far above what the sidecar may
// use and several calls are in flight at once.
type CreatorOptions struct {
	// Workers is the number of concurrent create (and delete) calls.
	Workers int
	// QPS and Burst are the client's rate limit.
	QPS   float32
	Burst int
}

// The two variants the benchmark exists for. The gate is set explicitly in
// both so that the report shows the exact flag each ran with.
var (
	GateOn  = Variant{Name: "gate on", Args: []string{"--feature-gates=ProvisioningProtection=true"}}
	GateOff = Variant{Name: "gate off", Args: []string{"--feature-gates=ProvisioningProtection=false"}}
)

// DefaultOptions is the full benchmark: 1,000 claims, 3 runs per variant.
func DefaultOptions() Options {
	return Options{
		Claims:   1000,
		Runs:     3,
		Variants: []Variant{GateOn, GateOff},
		SidecarArgs: []string{
			"--kube-api-qps=200",
			"--kube-api-burst=400",
			"--worker-threads=100",
		},
		SidecarVerbosity: 2,
		// kube-controller-manager's default client limit (20 QPS, 30
		// burst) would make the PV binder the bottleneck long before the
		// sidecar: binding one claim takes it several writes.
		KCMArgs: []string{
			"--kube-api-qps=1000",
			"--kube-api-burst=2000",
		},
		Creator:      CreatorOptions{Workers: 32, QPS: 5000, Burst: 5000},
		PhaseTimeout: 5 * time.Minute,
	}
}

// QuickOptions is the short mode (BENCH_QUICK=1): 100 claims, one run per
// variant, for a check in a few minutes rather than figures to quote.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Quick = true
	o.Claims = 100
	o.Runs = 1
	o.PhaseTimeout = 2 * time.Minute
	return o
}

// OverrideArgs returns args with every flag of extra replacing the one of
// the same name (the part before "="), and the others appended.
func OverrideArgs(args, extra []string) []string {
	out := append([]string(nil), args...)
	for _, e := range extra {
		name, _, _ := strings.Cut(e, "=")
		replaced := false
		for i, a := range out {
			if n, _, _ := strings.Cut(a, "="); n == name {
				out[i] = e
				replaced = true
			}
		}
		if !replaced {
			out = append(out, e)
		}
	}
	return out
}
