package memory

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLimitPlanStartsAtThePeakWithoutALimit(t *testing.T) {
	ladder := []int{64, 160, 128, 96, 112, 80, 128}
	for _, tc := range []struct {
		peak     float64
		headroom int
		want     []int
	}{
		// The smallest limit that cannot bite, then every smaller one.
		{128, 0, []int{128, 112, 96, 80, 64}},
		{120.5, 0, []int{128, 112, 96, 80, 64}},
		// Above the ladder: every limit.
		{200, 0, []int{160, 128, 112, 96, 80, 64}},
		// Not measured: every limit, largest first.
		{math.NaN(), 0, []int{160, 128, 112, 96, 80, 64}},
		{0, 0, []int{160, 128, 112, 96, 80, 64}},
		{50, 0, []int{64}},
		// A limit must leave GOMEMLIMIT something.
		{120.5, 80, []int{128, 112, 96}},
	} {
		if got := limitPlan(ladder, tc.peak, tc.headroom); !slices.Equal(got, tc.want) {
			t.Errorf("peak %v, headroom %d: plan %v, want %v", tc.peak, tc.headroom, got, tc.want)
		}
	}
}

// heldRun is a run that did everything a limit asks for.
func heldRun(peakMiB float64) *SidecarRun {
	return &SidecarRun{End: peakOf(peakMiB), SyncTime: 3 * time.Second, FirstClaimBound: 4 * time.Second, BatchBound: 100}
}

func TestALimitHoldsIfTheSidecarDoesItsWork(t *testing.T) {
	for _, tc := range []struct {
		name    string
		try     LimitTry
		holds   bool
		verdict string
	}{
		{"held under a hard limit", LimitTry{LimitMiB: 96, Hard: true, Run: heldRun(90), CgroupPeak: 95 << 20}, true,
			"held: peak RSS 90.0 MiB, cgroup peak 95.0 MiB, synced in 3.00 s, first claim Bound after 4.00 s"},
		{"killed by the kernel", LimitTry{LimitMiB: 64, Hard: true, Run: &SidecarRun{End: peakOf(63), Problems: []string{"exited unexpectedly (signal: killed)"}}, CgroupPeak: 64 << 20, OOMKills: 1}, false,
			"killed by the kernel at the hard limit (peak RSS 63.0 MiB when last read, cgroup peak 64.0 MiB)"},
		{"never synced", LimitTry{LimitMiB: 64, Run: &SidecarRun{End: peakOf(70), Problems: []string{"gave up waiting for the sidecar's caches to sync"}}}, false,
			"did not sync: gave up waiting for the sidecar's caches to sync"},
		{"first claim not Bound", LimitTry{LimitMiB: 64, Run: func() *SidecarRun { r := heldRun(60); r.FirstClaimBound = 0; return r }()}, false,
			"the first claim was not Bound"},
		{"batch half done", LimitTry{LimitMiB: 64, Run: func() *SidecarRun { r := heldRun(60); r.BatchBound = 50; return r }()}, false,
			"provisioned 50 of 100 claims in time"},
		{"batch left behind", LimitTry{LimitMiB: 64, Run: func() *SidecarRun { r := heldRun(60); r.PVsLeft = 2; return r }()}, false,
			"left: 0 claims, 2 PVs, 0 driver volumes"},
		// Without a hard limit the peak RSS must stay at the limit.
		{"above the limit, no hard limit", LimitTry{LimitMiB: 64, Run: heldRun(64.5)}, false, "peak RSS 64.5 MiB, above the limit"},
		{"at the limit, no hard limit", LimitTry{LimitMiB: 64, Run: heldRun(64)}, true, "held: peak RSS 64.0 MiB, synced in 3.00 s, first claim Bound after 4.00 s"},
	} {
		holds, verdict := judgeLimit(&tc.try, 100)
		if holds != tc.holds || verdict != tc.verdict {
			t.Errorf("%s: %v, %q; want %v, %q", tc.name, holds, verdict, tc.holds, tc.verdict)
		}
	}
}

func TestSweepAnswersWithTheSmallestLimitThatHeld(t *testing.T) {
	try := func(mib int, holds bool, verdict string) *LimitTry {
		return &LimitTry{LimitMiB: mib, GoMemLimitMiB: mib - 50, Holds: holds, Verdict: verdict, Run: &SidecarRun{}}
	}
	for _, tc := range []struct {
		name     string
		tries    []*LimitTry
		smallest int
		want     string
	}{
		{"the third failed", []*LimitTry{try(128, true, ""), try(112, true, ""), try(96, false, "killed by the kernel")}, 112,
			"The smallest memory limit that holds with 50,000 claims and PVs cached for gate on is 112 MiB, with GOMEMLIMIT=62MiB; 96 MiB did not (killed by the kernel). For comparison, its peak RSS without a limit was 150.0 MiB."},
		{"the first failed", []*LimitTry{try(128, false, "did not sync")}, 0,
			"None of the limits tried held with 50,000 claims and PVs cached for gate on: the smallest that holds is above 128 MiB"},
		{"all held", []*LimitTry{try(128, true, ""), try(64, true, "")}, 64,
			"Every limit tried held with 50,000 claims and PVs cached for gate on, down to 64 MiB with GOMEMLIMIT=14MiB, the last tried"},
		{"none tried", nil, 0, "No memory limit was tried for gate on"},
	} {
		s := &LimitSweep{Variant: "gate on", Pairs: 50000, UnlimitedPeakMiB: 150, HeadroomMiB: 50, Tries: tc.tries}
		got, ok := s.Smallest()
		if got != tc.smallest || ok != (tc.smallest > 0) {
			t.Errorf("%s: smallest %d (%v), want %d", tc.name, got, ok, tc.smallest)
		}
		if sum := s.Summary(); !strings.HasPrefix(sum, tc.want) {
			t.Errorf("%s: summary %q, want it to begin %q", tc.name, sum, tc.want)
		}
	}
}

func TestSweepMarkdownListsEveryTry(t *testing.T) {
	s := &LimitSweep{Variant: "gate on", Pairs: 50000, UnlimitedPeakMiB: 150, BinaryMiB: 49.2, HeadroomMiB: 50, Hard: "cgroup v1 memory.limit_in_bytes", Ladder: []int{160, 128}, TryTimeout: 30 * time.Second, Tries: []*LimitTry{
		{LimitMiB: 160, GoMemLimitMiB: 110, Hard: true, Holds: true, Verdict: "held", Run: heldRun(120), CgroupPeak: 160 << 20},
		{LimitMiB: 128, GoMemLimitMiB: 78, Hard: true, Verdict: "killed by the kernel at the hard limit", Run: &SidecarRun{End: peakOf(95)}, OOMKills: 1},
	}}
	var b strings.Builder
	s.writeMarkdown(&b, 100)
	md := b.String()
	for _, want := range []string{
		"### Memory limit with GOMEMLIMIT: the smallest that holds 50,000 claims and PVs",
		"a hard limit on the process (cgroup v1 memory.limit_in_bytes of a memory cgroup of its own",
		"Its `GOMEMLIMIT` is the limit less 50 MiB, the binary's resident code and data (`RssFile`, 49.2 MiB in the runs without a limit)",
		"each step within 30s",
		"| 160 MiB | 110 MiB | yes | **holds** | 120.0 MiB | 160.0 MiB | 3.00 s | 4.00 s |",
		"| 128 MiB | 78 MiB | yes | does not hold: killed by the kernel at the hard limit | 95.0 MiB | – | – | – |",
		"The smallest memory limit that holds with 50,000 claims and PVs cached for gate on is 160 MiB, with GOMEMLIMIT=110MiB",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("sweep section lacks %q:\n%s", want, md)
		}
	}
}
