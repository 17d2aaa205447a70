package provisioning

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// Options configures a benchmark. DefaultOptions and QuickOptions fill every
// field; a caller changes what it needs afterwards. Each run gets a fresh
// control plane, so runs do not inherit each other's etcd history, audit
// log or informer caches; PhaseTimeout bounds provisioning and deletion
// each.
type Options struct {
	bench.Settings
	// Claims is the number of claims provisioned and deleted per run.
	Claims int
	// Variants are the sidecar configurations compared.
	Variants []bench.Variant
	// SkipDeletion ends each run once its claims are provisioned: the
	// largest runs and the slowest client limits would spend most of the
	// benchmark's time deleting, which is measured at other sizes.
	SkipDeletion bool
	// Latencies keeps every claim's latency in the results (for the
	// latency plot) rather than only the percentiles.
	Latencies bool
	// CPUProfileDir, if set, receives CPU profiles of the sidecar and of
	// kube-apiserver over CPUProfileSeconds from the first create call of
	// each run's provisioning (the sidecars get --enable-pprof), to find
	// where a volume's CPU goes: cpu-<tag>-<order>-<component>.pb.gz.
	CPUProfileDir     string
	CPUProfileSeconds int
	// ProfileTag names the scenario in the profiles' file names.
	ProfileTag string
}

// DefaultOptions is the full benchmark: 1,000 claims, 3 runs per variant.
func DefaultOptions() Options {
	o := Options{
		Settings: bench.DefaultSettings(),
		Claims:   1000,
		Variants: []bench.Variant{bench.GateOn, bench.GateOff},
	}
	o.PhaseTimeout = 5 * time.Minute
	return o
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
