package memory

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// Options configures the memory benchmark: one control plane filled
// with bound claims and PVs of the driver, grown from one size to the next,
// and at each size one fresh sidecar per run, whose peak RSS and CPU time
// are read from /proc once it has synced its caches, gone idle and
// provisioned and deleted a batch of claims. Each run is a new sidecar
// process on the same stack, so its RSS starts from nothing; the benchmark
// adds --http-endpoint to the sidecar's flags to read its Go heap figures
// and work queues. PhaseTimeout bounds the batch's provisioning and its
// deletion; the one work folder is kept when any run had problems.
type Options struct {
	bench.Settings
	// Sizes are the numbers of bound claims in the cluster, and of their
	// PVs, at which every variant runs, ascending: the cluster is filled
	// to the first, the runs of every variant follow, then it is grown to
	// the next, so the pairs are written once. Every pair is in each
	// sidecar's caches.
	Sizes []int
	// Batch is the number of claims each run provisions and deletes once
	// the sidecar is idle, so the figures include the sidecar at work
	// with full caches.
	Batch int
	// Variants are compared, at every size. A variant's Binary is run;
	// its RBACManifest is not installed: every variant runs under the
	// shipped RBAC, installed once for the stack (for the baseline, a
	// superset of upstream's).
	Variants []bench.Variant
	// SyncTimeout bounds the wait for a sidecar to sync its caches and go
	// idle.
	SyncTimeout time.Duration
	// SettleTimeout bounds the wait for kube-controller-manager to go
	// through the pairs after each fill: at 50,000 pairs its informers
	// and the binder's first pass take far longer than a sidecar's sync.
	SettleTimeout time.Duration
	// FillWorkers is the number of pairs written at once while filling.
	// Each pair is four writes one after another, so more of them than
	// the batch's creators keep kube-apiserver and etcd busy.
	FillWorkers int
	// HeapProfileDir, if set, receives each run's Go heap profile at its
	// end (heap-<order>.pb.gz, from --enable-pprof), to find where the
	// bytes go: `go tool pprof -sample_index=inuse_space -top <file>`.
	HeapProfileDir string
	// GoalMiB is the peak RSS every run of ours at the smallest size
	// should stay under.
	GoalMiB float64
	// Shipped names the variant that runs with the settings the project
	// ships (deploy/kubernetes), the one the goals against the baseline,
	// the slope goal and the memory limit sweep judge. Point it at another
	// variant when the shipped settings change.
	Shipped string
	// Limits is the sweep of memory limits, with GOMEMLIMIT to match, at
	// the largest size.
	Limits LimitOptions
}

// LimitOptions configures the search for the smallest memory limit, with
// GOMEMLIMIT set to match, with which the shipped settings hold the
// largest size: the shipped variant runs again under each limit, a hard
// one on the process (a memory cgroup of its own) where the machine
// allows it, as a container's limit would be, with GOMEMLIMIT set to the
// limit less the headroom; one limit after another, from the smallest of
// LadderMiB at or above the variant's peak RSS without a limit, down until
// one does not hold.
type LimitOptions struct {
	// LadderMiB are the limits that may be tried, in MiB, descending.
	// Empty skips the sweep.
	LadderMiB []int
	// Hard asks for the hard limit. Without it, or where no memory
	// cgroup can be made, "holds" is judged by the process alone: it
	// stays up, syncs, provisions its batch, and its peak RSS stays at
	// or below the limit.
	Hard bool
	// HeadroomMiB is what GOMEMLIMIT leaves of each limit for the memory
	// the Go runtime does not count, the binary's code and data: a
	// GOMEMLIMIT equal to the limit leaves them no room, and below its
	// peak without a limit the sidecar thrashes (the kernel dropping
	// and reading back its binary's pages) instead of holding. Zero
	// means as measured: the variant's RssFile at the largest size
	// without a limit (median, rounded up).
	HeadroomMiB int
	// TryTimeout replaces SyncTimeout and PhaseTimeout in the sweep's
	// runs: a sidecar thrashing at its hard limit never fails, it only
	// crawls, and a sync or a batch that takes seconds without a limit
	// tells it apart well before a minute.
	TryTimeout time.Duration
}

// DefaultLimitLadderMiB are the memory limits the sweep may try: up to
// twice the shipped settings' peak RSS at 50,000 pairs (about 520 MiB),
// in steps of 64 to 128 MiB up there, 32 to 64 MiB in between and 8 to
// 16 MiB near the floor of a few thousand pairs.
var DefaultLimitLadderMiB = []int{1024, 896, 768, 704, 640, 576, 512, 448, 384, 320, 256, 224, 192, 160, 128, 112, 96, 80, 64, 56, 48, 40, 32, 24}

// AllProtectionGatesOn is the sidecar with every protection controller it
// has: the variant with the most informers (pods for PVC protection) and
// handlers.
var AllProtectionGatesOn = bench.Variant{
	Name: "all protection gates on",
	Args: []string{"--feature-gates=ProvisioningProtection=true,PVProtection=true,PVCProtection=true"},
}

// MemoryLimited is AllProtectionGatesOn with a soft memory limit for the Go
// runtime, the tuning docs/benchmark.md suggests for large clusters: the
// collector works harder instead of letting the heap double its live size.
var MemoryLimited = bench.Variant{
	Name: "all gates on, GOMEMLIMIT=100MiB",
	Args: AllProtectionGatesOn.Args,
	Env:  []string{"GOMEMLIMIT=100MiB"},
}

// DefaultOptions is the full benchmark: 10,000, 25,000 and 50,000 bound
// pairs, a batch of 100 claims, 3 runs of each variant at each size, and
// the sweep of memory limits at 50,000.
func DefaultOptions() Options {
	o := Options{
		Settings:      bench.DefaultSettings(),
		Sizes:         []int{10000, 25000, 50000},
		Batch:         100,
		Variants:      []bench.Variant{bench.GateOn, bench.GateOff, AllProtectionGatesOn, MemoryLimited},
		SyncTimeout:   2 * time.Minute,
		SettleTimeout: 10 * time.Minute,
		FillWorkers:   64,
		GoalMiB:       GoalPeakRSSMiB,
		Shipped:       bench.GateOn.Name,
		Limits:        LimitOptions{LadderMiB: DefaultLimitLadderMiB, Hard: true, TryTimeout: 30 * time.Second},
	}
	o.PhaseTimeout = time.Minute
	return o
}

// QuickOptions is the short mode: 1,000, 2,000 and 4,000 pairs, one run
// per variant, the sweep at 4,000 with a shorter bound on each try.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Quick = true
	o.Sizes = []int{1000, 2000, 4000}
	o.Runs = 1
	o.Limits.TryTimeout = 15 * time.Second
	return o
}

// largest is the last, largest size.
func (o Options) largest() int {
	if len(o.Sizes) == 0 {
		return 0
	}
	return o.Sizes[len(o.Sizes)-1]
}
