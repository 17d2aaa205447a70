package report

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/capacity"
	"github.com/csi-protect/external-provisioner/test/bench/claimdeletion"
	"github.com/csi-protect/external-provisioner/test/bench/gobench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/memory"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
	"github.com/csi-protect/external-provisioner/test/bench/throttled"
)

// Overview is everything `make bench` measured, for report.md: the goals,
// the provisioning scenarios side by side with their plots, and the other
// benchmarks' sections. Each part is nil when its benchmark did not run.
type Overview struct {
	Environment   bench.Environment              `json:"environment"`
	Invocation    bench.Invocation               `json:"invocation"`
	Quick         bool                           `json:"quick"`
	Started       time.Time                      `json:"started"`
	Duration      time.Duration                  `json:"duration"`
	Provisioning  []*provisioning.ScenarioResult `json:"provisioning,omitempty"`
	Memory        *memory.Report                 `json:"memory,omitempty"`
	PVCProtection *claimdeletion.Report          `json:"pvcProtection,omitempty"`
	Throttled     *throttled.Report              `json:"throttled,omitempty"`
	Capacity      *capacity.Report               `json:"capacity,omitempty"`
	GoBenchmarks  *gobench.Results               `json:"goBenchmarks,omitempty"`
	Plots         []measure.Plot                 `json:"plots,omitempty"`
	// Failures are the benchmarks that did not finish, and why.
	Failures []string `json:"failures,omitempty"`
}

// NewOverview starts an overview: where and how the benchmark runs.
func NewOverview(ctx context.Context, opts provisioning.Options, how bench.Invocation) (*Overview, error) {
	env, err := bench.GatherEnvironment(ctx, opts.BinDir, opts.ControlPlaneDir)
	if err != nil {
		return nil, err
	}
	return &Overview{Environment: env, Invocation: how, Quick: opts.Quick, Started: time.Now()}, nil
}

// goalThroughputRatio is the least throughput of the gate on against the
// gate off, in every scenario.
const goalThroughputRatio = 0.9

// The project's provisioning goals against the baseline (an upstream
// release), each a bound on the ratio of our median to the baseline's. The
// memory and PVC protection goals are their packages'.
const (
	// Default client limits, gate on, 100 and 1,000 claims: throughput
	// at least 0.95 of upstream's, latency p50 and p99 at most 1.1 times.
	goalDefaultThroughputVsBaseline = 0.95
	goalDefaultLatencyVsBaseline    = 1.1
	// Tuned client limits, gate on, 100, 1,000 and 5,000 claims: at
	// least upstream's throughput.
	goalTunedThroughputVsBaseline = 1.0
	// Deletion, gate on and off: no more sidecar requests per deleted
	// volume than upstream.
	goalDeletionRequestsVsBaseline = 1.0
)

// baselineGoalVariant is our variant that the provisioning goals against
// the baseline judge.
var baselineGoalVariant = bench.GateOn.Name

// Markdown writes report.md. Details are in each benchmark's own file,
// linked from here.
func (o *Overview) Markdown() string {
	var b strings.Builder
	o.writeHeader(&b)
	o.writeGoals(&b)
	o.writeProvisioning(&b)
	if o.Memory != nil {
		b.WriteString(o.Memory.Markdown())
	}
	if o.PVCProtection != nil {
		b.WriteString("## PVC protection: the sidecar against kube-controller-manager\n\n")
		b.WriteString("From [pvc-protection.md](pvc-protection.md):\n\n")
		b.WriteString(demoteHeadings(dropTitle(o.PVCProtection.Markdown()), 2))
		if o.hasPlot("pvc-protection.png") {
			b.WriteString("![PVC protection](pvc-protection.png)\n\n")
		}
	}
	o.writeScale(&b)
	if o.GoBenchmarks != nil {
		b.WriteString(o.GoBenchmarks.Markdown())
	}
	return b.String()
}

func (o *Overview) writeHeader(b *strings.Builder) {
	e := o.Environment
	b.WriteString("# csi-provisioner benchmark\n\n")
	b.WriteString(bench.RanLine(o.Invocation, o.Quick, o.Started, o.Duration))
	e.WriteProvenance(b)
	if base := o.baselineVariant(); base != nil {
		fmt.Fprintf(b, "- Baseline: %s, with no flag of its own, one more configuration in the provisioning and memory benchmarks; every figure of ours is also given as a ratio to its median\n", base.Upstream())
	}
	b.WriteString("- Every figure is the median of its runs, with (min–max) when they differ; every run starts a fresh control plane, driver and sidecar, and the configurations compared run interleaved\n\n")
	for _, f := range o.Failures {
		fmt.Fprintf(b, "**Did not finish:** %s\n\n", f)
	}
}

// hasPlot tells whether the named plot was drawn.
func (o *Overview) hasPlot(file string) bool {
	for _, p := range o.Plots {
		if p.File == file {
			return true
		}
	}
	return false
}

// demoteHeadings adds levels to every markdown heading, to embed a report
// under a heading of the overview.
func demoteHeadings(md string, levels int) string {
	lines := strings.Split(md, "\n")
	inCode := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if !inCode && strings.HasPrefix(l, "#") {
			lines[i] = strings.Repeat("#", levels) + l
		}
	}
	return strings.Join(lines, "\n")
}

// dropTitle removes a report's first-level title line.
func dropTitle(md string) string {
	if strings.HasPrefix(md, "# ") {
		if i := strings.Index(md, "\n"); i >= 0 {
			return strings.TrimLeft(md[i+1:], "\n")
		}
	}
	return md
}
