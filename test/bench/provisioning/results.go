package provisioning

import (
	"math"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// RunResult is everything measured in one run of one variant. Durations
// that could not be measured (a phase that timed out) are zero; per-claim
// figures are in seconds.
type RunResult struct {
	Variant string `json:"variant"`
	// Run counts the variant's runs from 1; Order is the run's place in
	// the whole benchmark.
	Run    int `json:"run"`
	Order  int `json:"order"`
	Claims int `json:"claims"`
	// Problems lists what went wrong: a phase that timed out, a component
	// that died, a stack that did not stop cleanly.
	Problems []string `json:"problems,omitempty"`

	StackStart time.Duration `json:"stackStart"`

	// Provisioning: from the first Create call.
	CreateCalls   CallStats     `json:"createCalls"`
	PVsWall       time.Duration `json:"pvsWall"`       // until the last PV exists
	ProvisionWall time.Duration `json:"provisionWall"` // until the last claim is Bound
	SettleWall    time.Duration `json:"settleWall"`    // until no claim has the finalizer
	Bound         int           `json:"bound"`
	Latency       Percentiles   `json:"latency"` // Create returned -> Bound
	// Latencies are every Bound claim's latency in seconds, sorted; kept
	// only when Options.Latencies is set.
	Latencies   []float64   `json:"latencies,omitempty"`
	HandOver    Percentiles `json:"handOver"`    // Create returned -> the binder's annotation
	SidecarPart Percentiles `json:"sidecarPart"` // annotation -> PV exists
	PVToBound   Percentiles `json:"pvToBound"`   // PV exists -> Bound
	// BoundAtLastPV is the share of claims Bound when the last PV
	// appeared; TailBindRate the claims Bound per second after that, when
	// only the PV binder had work left.
	BoundAtLastPV float64 `json:"boundAtLastPV"`
	TailBindRate  float64 `json:"tailBindRate"`

	// Deletion: from the first Delete call.
	DeleteCalls       CallStats     `json:"deleteCalls"`
	PVsGoneWall       time.Duration `json:"pvsGoneWall"`
	DriverEmptyWall   time.Duration `json:"driverEmptyWall"`
	ClaimsGoneWall    time.Duration `json:"claimsGoneWall"`
	PVsLeft           int           `json:"pvsLeft"`
	DriverVolumesLeft int           `json:"driverVolumesLeft"`
	ClaimsLeft        int           `json:"claimsLeft"`

	Provisioning PhaseRequests `json:"provisioning"`
	Deletion     PhaseRequests `json:"deletion"`
	// DeletionSkipped is set when the run ended after provisioning
	// (Options.SkipDeletion).
	DeletionSkipped bool `json:"deletionSkipped,omitempty"`
	// SidecarRate is the sidecar's mean requests per second while
	// provisioning; SidecarThrottled the share of its main client's
	// requests sent at that client's rate limit (see sidecarRate).
	SidecarRate      float64 `json:"sidecarRate"`
	SidecarThrottled float64 `json:"sidecarThrottled"`

	CPUProvisioning measure.CPUUsage `json:"cpuProvisioning"`
	CPUDeletion     measure.CPUUsage `json:"cpuDeletion"`
}

// CallStats describes a batch of the benchmark's own calls.
type CallStats struct {
	Duration time.Duration `json:"duration"` // first issued -> last returned
	Failed   int           `json:"failed"`
	FirstErr string        `json:"firstErr,omitempty"`
}

// Percentiles of a per-claim duration, in seconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

func percentilesOf(d []time.Duration) Percentiles {
	return Percentiles{P50: measure.Percentile(d, 50), P99: measure.Percentile(d, 99)}
}

// Throughput is claims Bound per second of provisioning wall time.
func (r *RunResult) Throughput() float64 {
	if r.ProvisionWall <= 0 || r.Bound == 0 {
		return math.NaN()
	}
	return float64(r.Bound) / r.ProvisionWall.Seconds()
}

// DeleteThroughput is volumes deleted (PV gone) per second.
func (r *RunResult) DeleteThroughput() float64 {
	if r.PVsGoneWall <= 0 {
		return math.NaN()
	}
	return float64(r.Claims-r.PVsLeft) / r.PVsGoneWall.Seconds()
}

// PerVolume divides a count by the run's claims.
func (r *RunResult) PerVolume(n int) float64 {
	if r.Claims == 0 {
		return math.NaN()
	}
	return float64(n) / float64(r.Claims)
}

// SidecarErrors counts the sidecar's non-2xx answers in both phases.
func (r *RunResult) SidecarErrors() int {
	n := 0
	for _, p := range []PhaseRequests{r.Provisioning, r.Deletion} {
		for _, c := range p.SidecarErrors {
			n += c
		}
	}
	return n
}

// VariantResult is a variant's runs.
type VariantResult struct {
	Variant bench.Variant `json:"variant"`
	Runs    []*RunResult  `json:"runs"`
	// Commands are the components' command lines of the variant's first
	// run, with the run's work folder shown as $WORK.
	Commands []Command `json:"commands"`
}

// Command is one component's command line.
type Command struct {
	Component string `json:"component"`
	Line      string `json:"line"`
}

// Spread collects one figure over the variant's runs.
func (v *VariantResult) Spread(f func(*RunResult) float64) measure.Spread {
	vals := make([]float64, 0, len(v.Runs))
	for _, r := range v.Runs {
		vals = append(vals, f(r))
	}
	return measure.SpreadOf(vals)
}

// RequestsPerVolume is the spread over runs of the sidecar's requests per
// volume for key in a phase.
func (v *VariantResult) RequestsPerVolume(phase func(*RunResult) PhaseRequests, key string) measure.Spread {
	return v.Spread(func(r *RunResult) float64 { return r.PerVolume(phase(r).Sidecar[key]) })
}

// ErrorsPerRun are the failures the goal of zero errors counts in a run:
// the benchmark's failed calls, claims not Bound, volumes left, and the
// sidecar's non-2xx answers.
func (r *RunResult) ErrorsPerRun() (failures, sidecarErrors int) {
	failures = r.CreateCalls.Failed + r.DeleteCalls.Failed + (r.Claims - r.Bound) + r.PVsLeft + r.DriverVolumesLeft + len(r.Problems)
	return failures, r.SidecarErrors()
}

// RequestKind picks which of the sidecar's requests SidecarPerVolume
// counts.
type RequestKind int

// The kinds of the sidecar's requests.
const (
	AllRequests RequestKind = iota
	Writes
	Reads
)

// SidecarPerVolume reads the sidecar's requests of a kind per volume in a
// phase.
func SidecarPerVolume(phase func(*RunResult) PhaseRequests, kind RequestKind) func(*RunResult) float64 {
	return func(x *RunResult) float64 {
		all, writes := phase(x).SidecarTotals()
		return x.PerVolume([]int{all, writes, all - writes}[kind])
	}
}
