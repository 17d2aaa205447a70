package throttled

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

var baseline = bench.Variant{Name: bench.BaselineName, Binary: "/opt/upstream/csi-provisioner", RBACManifest: bench.UpstreamRBACManifest}

// finished is a run of a configuration that got every claim Bound in
// boundIn seconds with failed refused CreateVolume calls, and deleted them.
func finished(variant string, run int, boundIn float64, failed int) *RunResult {
	o := DefaultOptions()
	return &RunResult{
		Variant: variant, Run: run, Claims: o.Claims, Bound: o.Claims,
		LatencyP50: boundIn / 2, LatencyP99: boundIn * 0.9,
		Provisioning: Phase{Duration: seconds(boundIn), Calls: Calls{Succeeded: o.Claims, Failed: failed}, SidecarCPU: 4},
		Deletion:     Phase{Duration: seconds(boundIn / 2), Calls: Calls{Succeeded: o.Claims, Failed: failed / 2}, SidecarCPU: 2},
	}
}

// gaveUp is a run whose provisioning ran out of time after boundIn
// seconds with left claims not Bound.
func gaveUp(variant string, run int, boundIn float64, failed, left int) *RunResult {
	r := finished(variant, run, boundIn, failed)
	r.Bound -= left
	r.Provisioning.TimedOut = true
	r.Provisioning.Calls.Succeeded -= left
	r.Deletion, r.DeletionSkipped = Phase{}, true
	return r
}

// mustContain fails t for every string of want the report lacks.
func mustContain(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func report(variants []bench.Variant, runs ...*RunResult) *Report {
	return &Report{Options: DefaultOptions(), Variants: variants, Runs: runs}
}

func withBaseline(runs ...*RunResult) *Report {
	return report([]bench.Variant{bench.GateOn, Adaptive, baseline}, runs...)
}

func TestGoalsJudgeAdaptiveAgainstTheBaselinesMedians(t *testing.T) {
	r := withBaseline(
		finished("adaptive", 1, 70, 40), finished("adaptive", 2, 60, 50), finished("adaptive", 3, 55, 60),
		finished(bench.BaselineName, 1, 100, 1000), finished(bench.BaselineName, 2, 90, 900), finished(bench.BaselineName, 3, 120, 1100),
	)
	goals := r.Goals()
	if len(goals) != 2 {
		t.Fatalf("got %d goals, want time until all Bound and failed CreateVolume calls: %+v", len(goals), goals)
	}
	bound, failed := goals[0], goals[1]
	if !bound.Met || bound.Measured != "0.60 (60.0 s vs 100.0 s)" {
		t.Errorf("time goal %+v, want met at 0.60", bound)
	}
	if !failed.Met || failed.Measured != "0.05 (50 vs 1000)" {
		t.Errorf("failed calls goal %+v, want met at 0.05", failed)
	}
	for _, g := range goals {
		if !strings.Contains(g.Goal, "adaptive ≤") || !strings.Contains(g.Goal, "1,000 claims at 10 calls/s") {
			t.Errorf("goal %q does not say what it judges", g.Goal)
		}
	}
}

func TestGoalsMissedByAdaptive(t *testing.T) {
	r := withBaseline(finished("adaptive", 1, 90, 200), finished(bench.BaselineName, 1, 100, 1000))
	for _, g := range r.Goals() {
		if g.Met || g.Value == nil {
			t.Errorf("goal %+v, want measured and not met (0.90 and 0.20)", g)
		}
	}
}

func TestGoalsWithoutABaselineAreNotMeasured(t *testing.T) {
	r := report([]bench.Variant{bench.GateOn, Adaptive}, finished("gate on", 1, 100, 900), finished("adaptive", 1, 60, 50))
	for _, g := range r.Goals() {
		if g.Met || g.Value != nil || g.Measured != "not measured" {
			t.Errorf("goal %+v, want not measured", g)
		}
	}
	mustContain(t, "report", r.Markdown(), "Not measured: they compare with an upstream release")
}

func TestABaselineThatRanOutOfTimeBoundsTheRatioFromAbove(t *testing.T) {
	r := withBaseline(finished("adaptive", 1, 60, 50), gaveUp(bench.BaselineName, 1, 1200, 5000, 400))
	bound := r.Goals()[0]
	if !bound.Met || bound.Measured != "0.05 (60.0 s vs 1200.0 s); the baseline ran out of time, so at most that" {
		t.Errorf("time goal %+v, want met: the baseline took at least 1200 s", bound)
	}
}

func TestAdaptiveThatRanOutOfTimeMeetsNoGoal(t *testing.T) {
	r := withBaseline(gaveUp("adaptive", 1, 100, 10, 300), finished(bench.BaselineName, 1, 1000, 5000))
	for _, g := range r.Goals() {
		if g.Met || !strings.Contains(g.Measured, "adaptive ran out of time, so at least that") {
			t.Errorf("goal %+v, want not met: adaptive's figures are lower bounds", g)
		}
	}
	r = withBaseline(gaveUp("adaptive", 1, 100, 10, 300), gaveUp(bench.BaselineName, 1, 1000, 5000, 300))
	if g := r.Goals()[0]; g.Met || g.Value != nil || !strings.HasSuffix(g.Measured, "both ran out of time, so not known") {
		t.Errorf("goal %+v, want not met and not known", g)
	}
}

func TestRunsWithProblemsAreLeftOutOfTheMedians(t *testing.T) {
	broken := finished("adaptive", 2, 5, 0)
	broken.Problems = []string{"mock-csi-driver exited"}
	r := withBaseline(finished("adaptive", 1, 60, 50), broken, finished(bench.BaselineName, 1, 100, 1000))
	if s := r.spread("adaptive", figBoundIn); s.N != 1 || s.Median != 60 {
		t.Errorf("spread %+v, want the one run without problems", s.Spread)
	}
	if !r.HasProblems() {
		t.Error("HasProblems = false with a run that had one")
	}
}

func TestHasProblems(t *testing.T) {
	for name, spoil := range map[string]func(*RunResult){
		"a component died":            func(x *RunResult) { x.Problems = []string{"mock-csi-driver exited"} },
		"the stack did not stop":      func(x *RunResult) { x.Problems = []string{"stack did not stop cleanly"} },
		"the warm-up claim not Bound": func(x *RunResult) { x.Problems = []string{"warm-up claim: gave up"} },
	} {
		run := finished("adaptive", 1, 60, 50)
		spoil(run)
		if !report([]bench.Variant{Adaptive}, run).HasProblems() {
			t.Errorf("%s: HasProblems = false", name)
		}
	}
}

// Running out of time against a throttled backend is what the part shows
// of a sidecar, not a fault of the run: the report marks it and the goals
// judge it.
func TestARunThatRanOutOfTimeIsNoProblem(t *testing.T) {
	slow := gaveUp(bench.BaselineName, 1, 900, 5000, 400)
	slowDeletion := finished("gate on", 1, 300, 3000)
	slowDeletion.Deletion.TimedOut, slowDeletion.PVsLeft = true, 12
	if r := withBaseline(finished("adaptive", 1, 60, 50), slow, slowDeletion); r.HasProblems() {
		t.Error("HasProblems for runs that only ran out of time")
	}
}

func TestMarkdownShowsEachConfigurationAgainstTheBaseline(t *testing.T) {
	r := withBaseline(
		finished("gate on", 1, 500, 4000), finished("gate on", 2, 520, 4200),
		finished("adaptive", 1, 70, 40), finished("adaptive", 2, 50, 60),
		gaveUp(bench.BaselineName, 1, 1200, 5000, 400), finished(bench.BaselineName, 2, 1000, 4500),
	)
	mustContain(t, "report", r.Markdown(),
		"# Throttled backend benchmark",
		"10 storage calls a second (CreateVolume, DeleteVolume) in bursts of 10",
		"1,000 claims of an Immediate class",
		"`--kube-api-qps=200 --kube-api-burst=400 --worker-threads=100 -v=2`",
		"adaptive `--feature-gates=ProvisioningProtection=true --adaptive-concurrency`",
		"the baseline under upstream's RBAC (`"+bench.UpstreamRBACManifest+"`)",
		// The goals, and gate on beside them.
		"| time until all Bound ≤ 0.8 × baseline | **met** | 0.05 (60.0 s vs 1100.0 s); the baseline ran out of time, so at most that | 0.46 (510.0 s vs 1100.0 s); the baseline ran out of time, so at most that |",
		"| failed CreateVolume calls ≤ 0.1 × baseline | **met** | 0.01 (50 vs 4750); the baseline ran out of time, so at most that |",
		// A table per configuration.
		"## adaptive\n\nadaptive `--feature-gates=ProvisioningProtection=true --adaptive-concurrency`; 2 runs.",
		"| time until all Bound | 60.0 s (50.0–70.0) | ≤ 0.05× |",
		"| failed CreateVolume calls | 50 (40–60) | ≤ 0.01× |",
		"| time until all PVs gone | 30.0 s (25.0–35.0) | 0.06× |",
		"## baseline",
		"| time until all Bound | ≥ 1100.0 s (1000.0–1200.0) |",
		"| time until all PVs gone | 500.0 s |",
		// The runs.
		"| adaptive | 1 | 0 | 1000 of 1000 | 70.0 s | 40 | 1000 | 35.0 s | 20 | 1000 | 4.0 s + 2.0 s |  |",
		"| baseline | 1 | 0 | 600 of 1000 | ≥ 1200.0 s (gave up, 400 left) | 5000 | 600 | not run | – | – | 4.0 s |  |",
	)
}

func TestReportJSONHasTheSetupAndTheGoals(t *testing.T) {
	r := withBaseline(finished("adaptive", 1, 60, 50), gaveUp(bench.BaselineName, 1, 1200, 5000, 400))
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Setup struct {
			Claims       int     `json:"claims"`
			APIRateLimit float64 `json:"apiRateLimit"`
		} `json:"setup"`
		Goals []bench.Goal    `json:"goals"`
		Runs  []*RunResult    `json:"runs"`
		Vars  []bench.Variant `json:"variants"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Setup.Claims != 1000 || got.Setup.APIRateLimit != 10 || len(got.Goals) != 2 || len(got.Runs) != 2 || len(got.Vars) != 3 {
		t.Errorf("results.json of the part: %s", data)
	}
	if !got.Runs[1].Provisioning.TimedOut || !got.Runs[1].DeletionSkipped {
		t.Errorf("the baseline's run lost what it ran into: %+v", got.Runs[1])
	}
}
