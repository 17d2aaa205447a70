package claimdeletion

import (
	"strings"
	"testing"
	"time"
)

func quietReport(kcm, ours []time.Duration) *Report {
	o := DefaultOptions()
	return &Report{Options: o, Runs: []*RunResult{
		{Controller: KCMPVCProtection.Name, Run: 1, Quiet: kcm},
		{Controller: SidecarPVCProtection.Name, Run: 1, Quiet: ours},
	}}
}

func TestQuietDeletionGoalComparesMedians(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		kcm, ours []time.Duration
		want      string
	}{
		{"faster", ms(600, 650, 700), ms(100, 120, 900), "Goal: released no later than kube-controller-manager releases it: met (median 0.120 s against 0.650 s)"},
		{"slower", ms(600, 650, 700), ms(1000, 3000, 2900), "not met (median 2.900 s against 0.650 s)"},
	} {
		md := quietReport(tc.kcm, tc.ours).Markdown()
		if !strings.Contains(md, tc.want) {
			t.Errorf("%s: report lacks %q:\n%s", tc.name, tc.want, md)
		}
	}
}

func TestQuietDeletionsOfARunWithProblemsAreLeftOut(t *testing.T) {
	r := quietReport([]time.Duration{time.Second}, []time.Duration{time.Second})
	r.Runs[1].Problems = []string{"claim still there"}
	if s := r.quietSpread(SidecarPVCProtection.Name); s.N != 0 {
		t.Fatalf("spread %+v, want nothing from a run with problems", s)
	}
}

func TestPVCProtectionGoalsJudgeBulkAndQuietAgainstKCM(t *testing.T) {
	r := quietReport([]time.Duration{10 * time.Millisecond}, []time.Duration{12 * time.Millisecond})
	r.Runs[0].Duration = 8 * time.Second
	r.Runs[1].Duration = 3 * time.Second
	goals := r.Goals()
	if len(goals) != 2 {
		t.Fatalf("got %d goals, want bulk and quiet: %+v", len(goals), goals)
	}
	bulk, quiet := goals[0], goals[1]
	if !bulk.Met || bulk.Measured != "0.38 (3.00 s vs 8.00 s)" {
		t.Errorf("bulk goal %+v, want met at 0.38", bulk)
	}
	if quiet.Met || quiet.Measured != "1.20 (0.012 s vs 0.010 s)" {
		t.Errorf("quiet goal %+v, want not met at 1.20", quiet)
	}
}
