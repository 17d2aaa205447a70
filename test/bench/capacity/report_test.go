package capacity

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

func TestTheReportShowsEveryPhaseAndTheGoalsPerConfiguration(t *testing.T) {
	ours := goodRun(Ours.Name)
	ours.Moving.MovingObjects = 800
	ours.Moving.WritesPerPoll = []int{61, 60, 60}
	r := reportOf(ours, upstreamRun())
	r.Plots = []measure.Plot{{File: "capacity-queue-depth.png", Title: "Capacity workqueue depth"}}
	md := r.Markdown()
	for _, want := range []string{
		"## Goals",
		"| capacity, moving phase: p99 relative error of the published capacity ≤ 10% | met: p99 5.0% | **not met**: p99 52.0% |",
		"Peak RSS of the moving phase's sidecar ≤ 0.5 × the baseline's: met: 0.30 (60.0 MiB vs 200.0 MiB).",
		"| ours | 1 | churn | 800 | 8.50 s | 8.00 s | 1.06× |",
		"800 of the 4,000 objects change every poll; the default budget allows about 60 writes a poll",
		"a controller would have to write about 760 a poll",
		"61, 60, 60",
		"![Capacity workqueue depth](capacity-queue-depth.png)",
		"| baseline | 1 | 1m30s | 0 | 1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "## Problems") {
		t.Errorf("a report without problems has a Problems section:\n%s", md)
	}
}

func TestARunsProblemsAreReported(t *testing.T) {
	run := goodRun(Ours.Name)
	run.Problems = []string{"moving: the driver did not restart"}
	r := reportOf(run)
	if !r.HasProblems() {
		t.Fatal("HasProblems is false")
	}
	if md := r.Markdown(); !strings.Contains(md, "- ours, run 1: moving: the driver did not restart") {
		t.Errorf("report lacks the problem:\n%s", md)
	}
}

func TestTheReportsFiguresAreJSON(t *testing.T) {
	run := goodRun(Ours.Name)
	run.Moving.Samples = []Sample{{At: 5 * time.Second, Objects: 4000, ErrorP99: 0.2}}
	run.Moving.Depths = []DepthSample{{At: 5 * time.Second, Depth: 3990, Took: 20 * time.Millisecond}}
	data, err := json.Marshal(reportOf(run))
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Setup Setup        `json:"setup"`
		Runs  []*RunResult `json:"runs"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Setup.Objects != 4000 || len(back.Runs) != 1 || back.Runs[0].Moving.Depths[0].Depth != 3990 || back.Runs[0].PeakRSS["moving"] != 60<<20 {
		t.Fatalf("round trip lost figures: %s", data)
	}
}
