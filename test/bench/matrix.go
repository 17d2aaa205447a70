package bench

import (
	"context"
	"fmt"
	"time"
)

// ScenarioResult is one scenario of the provisioning benchmark.
type ScenarioResult struct {
	Scenario Scenario `json:"scenario"`
	Report   *Report  `json:"report"`
}

// RunScenarios runs the provisioning benchmark once per scenario, each
// with base's other options. A scenario that cannot run (its stack does not
// start) ends the benchmark: the later ones would fail the same way.
func RunScenarios(ctx context.Context, base Options, scenarios []Scenario, how Invocation) ([]*ScenarioResult, error) {
	var out []*ScenarioResult
	start := time.Now()
	for i, s := range scenarios {
		progress(base, "[%s] scenario %d/%d: %s, %d runs per configuration", time.Since(start).Round(time.Second), i+1, len(scenarios), s.Name(), s.Runs)
		rep, err := Run(ctx, s.Options(base), how)
		if err != nil {
			return out, fmt.Errorf("%s: %w", s.Name(), err)
		}
		rep.Title = s.Name()
		out = append(out, &ScenarioResult{Scenario: s, Report: rep})
	}
	return out, nil
}

// throughputRatio is the first variant's median throughput over the
// second's.
func (r *Report) throughputRatio() float64 {
	a, c := r.pair()
	if a == nil {
		return 0
	}
	thr := func(x *RunResult) float64 { return x.Throughput() }
	return ratio(a.spread(thr), c.spread(thr))
}

// errorsPerRun are the failures the goal of zero errors counts in each
// run: the benchmark's failed calls, claims not Bound, volumes left, and
// the sidecar's non-2xx answers.
func (r *RunResult) errorsPerRun() (failures, sidecarErrors int) {
	failures = r.CreateCalls.Failed + r.DeleteCalls.Failed + (r.Claims - r.Bound) + r.PVsLeft + r.DriverVolumesLeft + len(r.Problems)
	return failures, r.SidecarErrors()
}
