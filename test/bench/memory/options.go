package memory

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// Options configures the memory benchmark: one control plane filled
// with bound claims and PVs of the driver, then one fresh sidecar per run,
// whose peak RSS and CPU time are read from /proc once it has synced its
// caches, gone idle and provisioned and deleted a batch of claims. Each run
// is a new sidecar process on the same stack, so its RSS starts from
// nothing; the benchmark adds --http-endpoint to the sidecar's flags to
// read its Go heap figures and work queues. PhaseTimeout bounds the batch's
// provisioning and its deletion; the one work folder is kept when any run
// had problems.
type Options struct {
	bench.Settings
	// Objects is the number of bound claims in the cluster, and of their
	// PVs: every one of them is in the sidecar's caches.
	Objects int
	// Batch is the number of claims each run provisions and deletes once
	// the sidecar is idle, so the figures include the sidecar at work
	// with full caches.
	Batch int
	// Variants are compared. A variant's Binary is run; its RBACManifest
	// is not installed: every variant runs under the shipped RBAC,
	// installed once for the stack (for the baseline, a superset of
	// upstream's).
	Variants []bench.Variant
	// SyncTimeout bounds the wait for a sidecar to sync its caches and go
	// idle, and the settling of the cluster after the pairs are created.
	SyncTimeout time.Duration
	// HeapProfileDir, if set, receives each run's Go heap profile at its
	// end (heap-<order>.pb.gz, from --enable-pprof), to find where the
	// bytes go: `go tool pprof -sample_index=inuse_space -top <file>`.
	HeapProfileDir string
	// GoalMiB is the peak RSS every run of ours should stay under.
	GoalMiB float64
	// Shipped names the variant that runs with the settings the project
	// ships (deploy/kubernetes), the one whose peak RSS the goal against
	// the baseline judges. Point it at another variant when the shipped
	// settings change.
	Shipped string
}

// AllProtectionGatesOn is the sidecar with every protection controller it
// has: the variant with the most informers (pods for PVC protection) and
// handlers.
var AllProtectionGatesOn = bench.Variant{
	Name: "all protection gates on",
	Args: []string{"--feature-gates=ProvisioningProtection=true,PVProtection=true,PVCProtection=true"},
}

// MemoryLimited is AllProtectionGatesOn with a soft memory limit for the Go
// runtime, the tuning the README suggests for large clusters: the
// collector works harder instead of letting the heap double its live size.
var MemoryLimited = bench.Variant{
	Name: "all gates on, GOMEMLIMIT=100MiB",
	Args: AllProtectionGatesOn.Args,
	Env:  []string{"GOMEMLIMIT=100MiB"},
}

// DefaultOptions is the full benchmark: 10,000 bound pairs, a batch
// of 100 claims, 3 runs of each variant.
func DefaultOptions() Options {
	o := Options{
		Settings:    bench.DefaultSettings(),
		Objects:     10000,
		Batch:       100,
		Variants:    []bench.Variant{bench.GateOn, bench.GateOff, AllProtectionGatesOn, MemoryLimited},
		SyncTimeout: 2 * time.Minute,
		GoalMiB:     GoalPeakRSSMiB,
		Shipped:     bench.GateOn.Name,
	}
	o.PhaseTimeout = time.Minute
	return o
}

// QuickOptions is the short mode: 2,000 pairs, one run per variant.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Quick = true
	o.Objects = 2000
	o.Runs = 1
	return o
}
