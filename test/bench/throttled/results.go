package throttled

import (
	"math"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// RunResult is one run of one configuration. A phase that ran out of
// time has TimedOut set and its durations measured until the benchmark
// gave up: lower bounds, as are the failed calls counted until then.
type RunResult struct {
	Variant string `json:"variant"`
	// Run counts the configuration's runs from 1; Order is the run's place
	// in the whole part.
	Run    int `json:"run"`
	Order  int `json:"order"`
	Claims int `json:"claims"`

	// Provisioning, from the first create call.
	Provisioning Phase `json:"provisioning"`
	// Bound is how many claims were Bound.
	Bound int `json:"bound"`
	// LatencyP50 and LatencyP99 are of each Bound claim's time from its
	// create call returning until it was Bound, in seconds: how evenly the
	// sidecar's retries share the quota among the claims.
	LatencyP50 float64 `json:"latencyP50"`
	LatencyP99 float64 `json:"latencyP99"`

	// Deletion, from the first delete call; not run after a provisioning
	// that ran out of time.
	Deletion        Phase `json:"deletion"`
	DeletionSkipped bool  `json:"deletionSkipped,omitempty"`
	// PVsLeft are the PVs still there when the deletion ended.
	PVsLeft int `json:"pvsLeft"`

	// Problems are what went wrong besides a phase running out of time: a
	// component that died, a stack that did not stop cleanly. The figures
	// of a run with problems are left out of the medians.
	Problems []string `json:"problems,omitempty"`
}

// Phase is what one phase measured.
type Phase struct {
	// Duration is until the last claim was Bound (provisioning) or the
	// last PV gone (deletion), or until the benchmark gave up.
	Duration time.Duration `json:"duration"`
	TimedOut bool          `json:"timedOut,omitempty"`
	// Calls are the phase's CreateVolume (provisioning) or DeleteVolume
	// (deletion) calls the driver answered, from its log.
	Calls Calls `json:"calls"`
	// SidecarCPU is the sidecar's user and system CPU time in the phase,
	// in seconds.
	SidecarCPU float64 `json:"sidecarCPU"`
}

// Calls counts one CSI method's calls by outcome.
type Calls struct {
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
}

// seconds is a phase's duration for a figure, NaN when it was not measured.
func (p Phase) seconds() float64 {
	if p.Duration <= 0 {
		return math.NaN()
	}
	return p.Duration.Seconds()
}

// Left is how many claims were not Bound.
func (r *RunResult) Left() int { return r.Claims - r.Bound }

// Report is the whole throttled-backend benchmark.
type Report struct {
	Options Options `json:"-"`
	bench.Header
	Variants []bench.Variant `json:"variants"`
	Runs     []*RunResult    `json:"runs"`
}
