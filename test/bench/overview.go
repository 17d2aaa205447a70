package bench

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Overview is everything `make bench` measured, for report.md: the goals,
// the provisioning scenarios side by side with their plots, and the other
// benchmarks' sections. Each part is nil when its benchmark did not run.
type Overview struct {
	Environment   Environment       `json:"environment"`
	Invocation    Invocation        `json:"invocation"`
	Quick         bool              `json:"quick"`
	Started       time.Time         `json:"started"`
	Duration      time.Duration     `json:"duration"`
	Provisioning  []*ScenarioResult `json:"provisioning,omitempty"`
	Memory        *MemoryReport     `json:"memory,omitempty"`
	PVCProtection *DeletionReport   `json:"pvcProtection,omitempty"`
	GoBenchmarks  *GoBenchmarks     `json:"goBenchmarks,omitempty"`
	Plots         []Plot            `json:"plots,omitempty"`
	// Failures are the benchmarks that did not finish, and why.
	Failures []string `json:"failures,omitempty"`
}

// NewOverview starts an overview: where and how the benchmark runs.
func NewOverview(ctx context.Context, opts Options, how Invocation) (*Overview, error) {
	env, err := gatherEnvironment(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &Overview{Environment: env, Invocation: how, Quick: opts.Quick, Started: time.Now()}, nil
}

// Goals the issue sets, reported against.
const (
	goalThroughputRatio = 0.9
	goalPeakRSSMiB      = 150.0
)

// The project's goals against the baseline (an upstream release), each a
// bound on the ratio of our median to the baseline's.
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
	// Memory: the shipped settings' peak RSS at most 0.8 of upstream's
	// (MemoryOptions.Shipped names the variant).
	goalPeakRSSVsBaseline = 0.8
)

// PVC protection against kube-controller-manager's controller: a bulk
// deletion in half its time at most, and a single claim in a quiet
// namespace released no later than it releases it.
const (
	goalPVCBulkVsKCM  = 0.5
	goalPVCQuietVsKCM = 1.0
)

// baselineGoalVariant is our variant that the provisioning goals against
// the baseline judge.
var baselineGoalVariant = GateOn.Name

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
	if o.GoBenchmarks != nil {
		b.WriteString(o.GoBenchmarks.Markdown())
	}
	return b.String()
}

func (o *Overview) writeHeader(b *strings.Builder) {
	e := o.Environment
	b.WriteString("# csi-provisioner benchmark\n\n")
	b.WriteString(ranLine(o.Invocation, o.Quick, o.Started, o.Duration))
	e.writeProvenance(b)
	if base := o.baselineVariant(); base != nil {
		fmt.Fprintf(b, "- Baseline: %s, with no flag of its own, one more configuration in the provisioning and memory benchmarks; every figure of ours is also given as a ratio to its median\n", base.upstream())
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
