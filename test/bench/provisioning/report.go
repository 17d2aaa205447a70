package provisioning

import (
	"slices"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// Report is a whole benchmark: where it ran, with what, and the results.
type Report struct {
	// Title names the scenario, e.g. "1,000 claims, 200 QPS, ...".
	Title   string  `json:"title,omitempty"`
	Options Options `json:"-"`
	bench.Header
	Variants []*VariantResult `json:"variants"`
}

// ScenarioResult is one scenario of the provisioning benchmark.
type ScenarioResult struct {
	Scenario Scenario `json:"scenario"`
	Report   *Report  `json:"report"`
}

// HasProblems tells whether any run failed to measure something: a phase
// that timed out, a claim not Bound, a volume left, a component that died.
// The sidecar's non-2xx answers are reported but are not problems of the
// run by themselves.
func (r *Report) HasProblems() bool {
	for _, v := range r.Variants {
		for _, run := range v.Runs {
			if len(run.Problems) > 0 || run.Bound < run.Claims || run.PVsLeft > 0 || run.DriverVolumesLeft > 0 {
				return true
			}
		}
	}
	return false
}

// Deletes tells whether the runs measured deletion too.
func (r *Report) Deletes() bool { return !r.Options.SkipDeletion }

// Ours are the variants of this repository's sidecar, in their order.
func (r *Report) Ours() []*VariantResult {
	var out []*VariantResult
	for _, v := range r.Variants {
		if !v.Variant.IsBaseline() {
			out = append(out, v)
		}
	}
	return out
}

// Baseline is the upstream sidecar's variant, nil when none ran.
func (r *Report) Baseline() *VariantResult {
	for _, v := range r.Variants {
		if v.Variant.IsBaseline() {
			return v
		}
	}
	return nil
}

// Pair returns the two variants of ours compared (the first against the
// second, gate on against gate off), or nil when there are not two. The
// baseline is not one of them: it is compared with each (BaselineRatios).
func (r *Report) Pair() (a, b *VariantResult) {
	ours := r.Ours()
	if len(ours) != 2 {
		return nil, nil
	}
	return ours[0], ours[1]
}

// ThroughputRatio is the first variant's median throughput over the
// second's.
func (r *Report) ThroughputRatio() float64 {
	a, c := r.Pair()
	if a == nil {
		return 0
	}
	return measure.Ratio(a.Spread(FigThroughput), c.Spread(FigThroughput))
}

// PairedRatios divides a figure of the first variant's run i by the second
// variant's run i, runs with the same index having run back to back.
func (r *Report) PairedRatios(f func(*RunResult) float64) measure.Spread {
	a, c := r.Pair()
	var q []float64
	for i := range min(len(a.Runs), len(c.Runs)) {
		x, y := f(a.Runs[i]), f(c.Runs[i])
		if y != 0 {
			q = append(q, x/y)
		}
	}
	return measure.SpreadOf(q)
}

// Phase is a phase of a run, for the tables that walk them.
type Phase struct {
	Name, Doing string
	Get         func(*RunResult) PhaseRequests
}

// The two phases a run can measure.
var (
	Provisioning = Phase{"provisioning", "provisioning", func(x *RunResult) PhaseRequests { return x.Provisioning }}
	Deletion     = Phase{"deletion", "deleting", func(x *RunResult) PhaseRequests { return x.Deletion }}
)

// MeasuredPhases are the phases the runs measured.
func (r *Report) MeasuredPhases() []Phase {
	if r.Deletes() {
		return []Phase{Provisioning, Deletion}
	}
	return []Phase{Provisioning}
}

// RequestKeys lists every "verb resource" the sidecar used in a phase in
// any run, writes first, then by resource and verb.
func (r *Report) RequestKeys(phase func(*RunResult) PhaseRequests) []string {
	seen := map[string]bool{}
	for _, v := range r.Variants {
		for _, run := range v.Runs {
			for k := range phase(run).Sidecar {
				seen[k] = true
			}
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		va, ra := measure.SplitKey(a)
		vb, rb := measure.SplitKey(b)
		if wa, wb := measure.IsWrite(va), measure.IsWrite(vb); wa != wb {
			if wa {
				return -1
			}
			return 1
		}
		if c := strings.Compare(ra, rb); c != 0 {
			return c
		}
		return strings.Compare(va, vb)
	})
	return keys
}
