package bench

import (
	"strings"
	"testing"
	"time"
)

func quietReport(kcm, ours []time.Duration) *DeletionReport {
	o := DefaultDeletionOptions()
	return &DeletionReport{Options: o, Runs: []*DeletionRun{
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
