package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

var testBaseline = bench.Variant{Name: bench.BaselineName, Binary: "/tmp/up/bin/csi-provisioner"}

// goodRun meets every goal at the default options: 4,000 objects, 1m
// polls, 100 QPS.
func goodRun(variant string) *RunResult {
	return &RunResult{
		Variant:     variant,
		Run:         1,
		Convergence: Convergence{Writes: 4000, Took: 42 * time.Second},
		Churn:       Convergence{Writes: 800, Took: 8500 * time.Millisecond},
		Quiet:       Quiet{Window: 90 * time.Second},
		Moving: Moving{
			Observations: 288000, ErrorP99: 0.05,
			HiddenLongest: 100 * time.Second, HiddenStreaks: 300,
			Depth: DepthSummary{FirstPoll: 4000, LastPoll: 3990, Max: 4000},
		},
		PeakRSS: map[string]int64{"moving": 60 << 20},
	}
}

// upstreamRun misses every goal it can: its queue grows with every poll.
func upstreamRun() *RunResult {
	return &RunResult{
		Variant:     bench.BaselineName,
		Run:         1,
		Convergence: Convergence{Writes: 4000, Took: 41 * time.Second},
		Churn:       Convergence{Writes: 800, Took: 30 * time.Second},
		Quiet:       Quiet{Window: 90 * time.Second, Writes: 0, Refused: 1},
		Moving: Moving{
			Observations: 288000, ErrorP99: 0.52,
			HiddenLongest: 6 * time.Minute, HiddenStreaks: 900, HiddenOverLimit: 400,
			Depth: DepthSummary{FirstPoll: 4000, LastPoll: 21000, Max: 21000},
		},
		PeakRSS: map[string]int64{"moving": 200 << 20},
	}
}

func reportOf(runs ...*RunResult) *Report {
	o := DefaultOptions()
	o.Variants = []bench.Variant{Ours, testBaseline}
	return &Report{Options: o, Setup: setupOf(o), Runs: runs}
}

func goalNamed(t *testing.T, goals []bench.Goal, part string) bench.Goal {
	t.Helper()
	for _, g := range goals {
		if strings.Contains(g.Goal, part) {
			return g
		}
	}
	t.Fatalf("no goal about %q in %+v", part, goals)
	return bench.Goal{}
}

func TestOurGoalsAreMetByAGoodRunWithTheBaselinesFiguresBeside(t *testing.T) {
	goals := reportOf(goodRun(Ours.Name), upstreamRun()).Goals()
	if len(goals) != 7 {
		t.Fatalf("%d goals, want 6 absolute and the RSS ratio: %+v", len(goals), goals)
	}
	for _, g := range goals {
		if !g.Met {
			t.Errorf("not met: %s: %s", g.Goal, g.Measured)
		}
	}
	queue := goalNamed(t, goals, "queue drains")
	if want := "last poll 3,990, first poll 4,000, max 4,000 (4,000 objects); baseline: last poll 21,000, first poll 4,000, max 21,000 (4,000 objects)"; queue.Measured != want {
		t.Errorf("queue goal measured %q, want %q", queue.Measured, want)
	}
	rss := goalNamed(t, goals, "RSS")
	if rss.Measured != "0.30 (60.0 MiB vs 200.0 MiB)" {
		t.Errorf("RSS goal measured %q", rss.Measured)
	}
}

func TestTheBaselinesMissesAreJudgedAsOursWouldBe(t *testing.T) {
	r := reportOf(upstreamRun())
	runs := r.runsOf(bench.BaselineName)
	for _, tc := range []struct {
		judge func(*Report, []*RunResult) (string, bool, bool)
		want  string
	}{
		{judgeQueue, "last poll 21,000"},
		{judgeError, "p99 52.0%"},
		{judgeHidden, "longest 6.0 polls (6m0s), 400 of 900 streaks over 2 polls"},
		{func(r *Report, runs []*RunResult) (string, bool, bool) {
			return judgeBound(r, runs, func(x *RunResult) Convergence { return x.Churn })
		}, "3.75 × (30.0 s for 800 writes, bound 8.0 s)"},
	} {
		text, met, measured := tc.judge(r, runs)
		if met || !measured || !strings.Contains(text, tc.want) {
			t.Errorf("judged %q met=%v measured=%v; want not met, with %q", text, met, measured, tc.want)
		}
	}
	if text, met, _ := judgeQuiet(r, runs); !met || text != "0 writes (and 1 refused)" {
		t.Errorf("quiet: %q met=%v; upstream's refused start-up probe is no write", text, met)
	}
}

func TestAQueueBoundedByTheObjectsDrainsAndAGrowingOneDoesNot(t *testing.T) {
	for _, tc := range []struct {
		d    DepthSummary
		want bool
	}{
		{DepthSummary{FirstPoll: 3975, LastPoll: 4000}, true},
		{DepthSummary{FirstPoll: 4000, LastPoll: 120}, true},
		{DepthSummary{FirstPoll: 4000, LastPoll: 4001}, false},
		{DepthSummary{FirstPoll: 5000, LastPoll: 4800}, true},
		{DepthSummary{FirstPoll: -1, LastPoll: 10}, false},
	} {
		if got := queueDrains(tc.d, 4000); got != tc.want {
			t.Errorf("queueDrains(%+v, 4000 objects) = %v, want %v", tc.d, got, tc.want)
		}
	}
}

func TestTheWorstRunDecidesAnAbsoluteGoal(t *testing.T) {
	second := goodRun(Ours.Name)
	second.Run = 2
	second.Moving.ErrorP99 = 0.11
	r := reportOf(goodRun(Ours.Name), second)
	g := goalNamed(t, r.Goals(), "p99 relative error")
	if g.Met || g.Measured != "p99 11.0%" {
		t.Fatalf("goal %+v, want not met at the second run's 11%%", g)
	}
}

func TestAPhaseThatNeverConvergedMissesItsGoal(t *testing.T) {
	run := goodRun(Ours.Name)
	run.Churn.Took = 0
	g := goalNamed(t, reportOf(run).Goals(), "joining")
	if g.Met || !strings.HasPrefix(g.Measured, "did not converge") {
		t.Fatalf("goal %+v, want not met: did not converge", g)
	}
}

func TestWithoutABaselineThereIsNoRSSGoal(t *testing.T) {
	r := reportOf(goodRun(Ours.Name))
	r.Options.Variants = []bench.Variant{Ours}
	for _, g := range r.Goals() {
		if strings.Contains(g.Goal, "RSS") || strings.Contains(g.Measured, "baseline") {
			t.Errorf("goal without a baseline: %+v", g)
		}
	}
}

func TestMovingRSSIsInMiB(t *testing.T) {
	s := reportOf(goodRun(Ours.Name)).MovingRSS(Ours.Name)
	if s != (measure.Spread{Median: 60, Min: 60, Max: 60, N: 1}) {
		t.Fatalf("spread %+v, want 60 MiB", s)
	}
}
