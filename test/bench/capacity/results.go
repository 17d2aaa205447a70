package capacity

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// RunResult is one run of one configuration.
type RunResult struct {
	Variant string `json:"variant"`
	Run     int    `json:"run"`
	// Convergence is the first sidecar at FastQPS creating every object;
	// Churn the same sidecar following ChurnNodes nodes leaving and as
	// many joining.
	Convergence Convergence `json:"convergence"`
	Churn       Convergence `json:"churn"`
	Quiet       Quiet       `json:"quiet"`
	Moving      Moving      `json:"moving"`
	// PeakRSS is each sidecar's VmHWM before it stopped, by phase: "fast"
	// (convergence and churn), "quiet" and "moving".
	PeakRSS  map[string]int64 `json:"peakRSS"`
	Problems []string         `json:"problems,omitempty"`
}

// Convergence is how long the sidecar took to bring the objects to the
// driver's answers at FastQPS.
type Convergence struct {
	// Writes are the objects to create, update or delete: what the bound
	// counts.
	Writes int `json:"writes"`
	// Took is from the start (the sidecar's for convergence, the first
	// node change for churn) until the watch delivered the change that
	// made every object right; 0 when they never were.
	Took time.Duration `json:"took"`
	// FirstWrite is from the start until the sidecar's first write of an
	// object, from the audit log.
	FirstWrite time.Duration `json:"firstWrite"`
	// SidecarWrites are the sidecar's successful writes of objects during
	// the phase.
	SidecarWrites int `json:"sidecarWrites"`
	// ChangesMade is how long the benchmark took to make the node
	// changes (churn only).
	ChangesMade time.Duration `json:"changesMade,omitempty"`
}

// Quiet is a new sidecar at the default budget on objects that are all
// current, while nothing moves.
type Quiet struct {
	// Window is from the sidecar's start, covering its start-up pass and
	// its first poll.
	Window time.Duration `json:"window"`
	// Writes are its successful creates, updates, patches and deletes of
	// objects; Refused its write attempts that failed (upstream's start-up
	// probe, a create of an invalid object, is one).
	Writes  int `json:"writes"`
	Refused int `json:"refused"`
}

// Moving is the moving phase at the default budget.
type Moving struct {
	Duration time.Duration `json:"duration"`
	Samples  []Sample      `json:"samples"`
	// ErrorP50, ErrorP99 and ErrorMax are the relative errors of every
	// object at every sample, Observations how many there were.
	ErrorP50     float64 `json:"errorP50"`
	ErrorP99     float64 `json:"errorP99"`
	ErrorMax     float64 `json:"errorMax"`
	Observations int     `json:"observations"`
	// HiddenLongest is the longest an object's published capacity stayed
	// on the other side of its class's largest request than the driver's
	// answer, HiddenObject which object; HiddenStreaks counts such
	// streaks and HiddenOverLimit those longer than GoalHiddenPolls poll
	// intervals.
	HiddenLongest   time.Duration `json:"hiddenLongest"`
	HiddenObject    string        `json:"hiddenObject,omitempty"`
	HiddenStreaks   int           `json:"hiddenStreaks"`
	HiddenOverLimit int           `json:"hiddenOverLimit"`
	// WritesPerPoll are the sidecar's successful object writes in each
	// poll interval from the phase's start; Refused its failed write
	// attempts over the phase.
	WritesPerPoll []int `json:"writesPerPoll"`
	Refused       int   `json:"refused"`
	// Depths are the capacity backlog over the phase, Depth their
	// summary.
	Depths []DepthSample `json:"depths"`
	Depth  DepthSummary  `json:"depth"`
	// MovingObjects are the objects whose driver answer changes every
	// poll: those of the moving segments.
	MovingObjects int `json:"movingObjects"`
}

// DepthSummary is the backlog (DepthSample.Backlog) in the first and the
// last poll interval of the moving phase (the largest reading of each) and
// over all of it, -1 when not read; and how the scrapes went: those that
// answered, those that did not, and the slowest.
type DepthSummary struct {
	FirstPoll     int           `json:"firstPoll"`
	LastPoll      int           `json:"lastPoll"`
	Max           int           `json:"max"`
	Scrapes       int           `json:"scrapes"`
	FailedScrapes int           `json:"failedScrapes"`
	SlowestScrape time.Duration `json:"slowestScrape"`
}

// DepthSample is one reading of the sidecar's metrics: workqueue_depth of
// the csistoragecapacity queue and, for a sidecar that keeps its updates
// apart from the queue (ours), csi_provisioner_capacity_pending_writes.
type DepthSample struct {
	// At is when the scrape started, since the phase started; Took how
	// long it took.
	At    time.Duration `json:"at"`
	Depth int           `json:"depth"`
	// Pending is -1 for a sidecar without the metric.
	Pending int           `json:"pending"`
	Took    time.Duration `json:"took"`
}

// Backlog is what waits for the controller: the queued keys and the
// pending writes.
func (d DepthSample) Backlog() int { return d.Depth + max(d.Pending, 0) }

// Sample is one look at the moving phase.
type Sample struct {
	// At is the time since the phase started.
	At time.Duration `json:"at"`
	// Objects are the wanted objects published, Missing those not;
	// Stale the published ones whose capacity is not the driver's answer.
	Objects int `json:"objects"`
	Missing int `json:"missing"`
	Stale   int `json:"stale"`
	// ErrorP50, ErrorP99 and ErrorMax are over the published objects.
	ErrorP50 float64 `json:"errorP50"`
	ErrorP99 float64 `json:"errorP99"`
	ErrorMax float64 `json:"errorMax"`
	// Hidden are the objects that hide a crossing of their class's
	// largest request.
	Hidden int `json:"hidden"`
}

// Report is the whole capacity benchmark.
type Report struct {
	Options Options `json:"-"`
	bench.Header
	Setup Setup        `json:"setup"`
	Runs  []*RunResult `json:"runs"`
	// Plots are drawn by the caller (package plots) into the report's
	// folder.
	Plots []measure.Plot `json:"plots,omitempty"`
}

// Setup is what the runs had in common, for results.json.
type Setup struct {
	Nodes        int             `json:"nodes"`
	Objects      int             `json:"objects"`
	Classes      []Class         `json:"classes"`
	PollInterval time.Duration   `json:"pollInterval"`
	MovingShare  float64         `json:"movingShare"`
	Amplitude    float64         `json:"amplitude"`
	Seed         int64           `json:"seed"`
	MovingPolls  int             `json:"movingPolls"`
	FastQPS      float64         `json:"fastQPS"`
	FastBurst    int             `json:"fastBurst"`
	ChurnNodes   int             `json:"churnNodes"`
	SidecarArgs  []string        `json:"sidecarArgs"`
	Variants     []bench.Variant `json:"variants"`
}

func setupOf(o Options) Setup {
	return Setup{
		Nodes: o.Nodes, Objects: o.objects(), Classes: o.Classes, PollInterval: o.PollInterval,
		MovingShare: o.Moving.Share, Amplitude: o.Moving.Amplitude, Seed: o.Moving.Seed, MovingPolls: o.MovingPolls,
		FastQPS: o.FastQPS, FastBurst: o.FastBurst, ChurnNodes: o.ChurnNodes, SidecarArgs: o.SidecarArgs, Variants: o.Variants,
	}
}
