package throttled

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// Options configures the throttled-backend benchmark. DefaultOptions and
// QuickOptions fill every field; a caller changes what it needs afterwards.
// PhaseTimeout bounds provisioning and deletion each: a phase that runs out
// is reported with what was left, its figures as lower bounds.
type Options struct {
	bench.Settings
	// Claims are created at once in each run.
	Claims int
	// APIRateLimit and APIRateBurst are the backend's quota: storage calls
	// a second, and calls at once (framework.DriverOptions).
	APIRateLimit float64
	APIRateBurst int
	// Variants are the sidecar configurations compared; a baseline
	// (bench.Baseline) runs under its own RBAC.
	Variants []bench.Variant
}

// Adaptive is the gate on with --adaptive-concurrency: CreateVolume and
// DeleteVolume calls in flight bounded by an AIMD limit that shrinks when
// the backend refuses for load.
var Adaptive = bench.Variant{Name: "adaptive", Args: append(append([]string{}, bench.GateOn.Args...), "--adaptive-concurrency")}

// DefaultOptions is the full benchmark: 1,000 claims against 10 calls a
// second, 1 run per configuration. The quota alone lets 1,000 claims
// through in 100 s, but a sidecar that retries each claim on its own
// exponential back-off (1 s doubling to 5 min, upstream's defaults and
// ours) sends its retries in waves that the quota's burst mostly refuses,
// and may need hours; the phase timeout gives it two of its longest
// back-offs, and a run that needs more is reported as at least that. One
// run each, since those runs end at the timeout anyway: a ratio to a
// baseline that ran out of time is an upper bound, and judges the goals.
func DefaultOptions() Options {
	o := Options{
		Settings:     bench.DefaultSettings(),
		Claims:       1000,
		APIRateLimit: 10,
		APIRateBurst: 10,
		Variants:     []bench.Variant{bench.GateOn, Adaptive},
	}
	o.Runs = 1
	o.PhaseTimeout = 10 * time.Minute
	return o
}

// QuickOptions is the short mode (BENCH_QUICK=1): 50 claims, one run per
// configuration, a check that the part works rather than figures to quote;
// a configuration not done in 75 seconds is reported as at least that.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Quick = true
	o.Claims = 50
	o.Runs = 1
	o.PhaseTimeout = 75 * time.Second
	return o
}
