package bench

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scenarioWith is a scenario whose runs had the given throughputs (claims
// Bound per second of 100 claims), gate on and gate off alike in shape.
func scenarioWith(claims int, on, off []float64, sidecarErrors int) *ScenarioResult {
	s := Scenario{Claims: claims, Runs: len(on), Limits: TunedLimits}
	rep := &Report{Title: s.Name(), Options: s.Options(DefaultOptions())}
	order := 0
	for _, v := range []struct {
		variant Variant
		thr     []float64
	}{{GateOn, on}, {GateOff, off}} {
		vr := &VariantResult{Variant: v.variant}
		for i, thr := range v.thr {
			order++
			run := &RunResult{
				Variant: v.variant.Name, Run: i + 1, Order: order, Claims: claims, Bound: claims,
				ProvisionWall: time.Duration(float64(claims) / thr * float64(time.Second)),
				Latency:       Percentiles{P50: 1, P99: 2},
				Latencies:     []float64{0.5, 1, 2},
				Provisioning:  PhaseRequests{Sidecar: map[string]int{"create persistentvolumes": claims}},
				Deletion:      PhaseRequests{Sidecar: map[string]int{"delete persistentvolumes": claims}, SidecarErrors: map[string]int{}},
			}
			if sidecarErrors > 0 {
				run.Deletion.SidecarErrors["delete persistentvolumes 404"] = sidecarErrors
			}
			vr.Runs = append(vr.Runs, run)
		}
		rep.Variants = append(rep.Variants, vr)
	}
	return &ScenarioResult{Scenario: s, Report: rep}
}

func TestGoalsJudgeThroughputByTheRatioOfMedians(t *testing.T) {
	ov := &Overview{Provisioning: []*ScenarioResult{
		scenarioWith(100, []float64{45, 46, 47}, []float64{50, 50, 50}, 0),
		scenarioWith(1000, []float64{40, 41, 42}, []float64{50, 50, 50}, 0),
	}}
	md := ov.Markdown()
	mustContain(t, "report", md,
		"| throughput gate on ≥ 0.9 × gate off, 100 claims, 200 QPS, 400 burst, 100 workers | 0.92 (run by run 0.92 (0.90–0.94)) | yes |",
		"| throughput gate on ≥ 0.9 × gate off, 1,000 claims, 200 QPS, 400 burst, 100 workers | 0.82 (run by run 0.82 (0.80–0.84)) | **no** |",
		"| zero errors in every provisioning run | 12 runs: 0 failed calls, unbound claims or leftover volumes; the sidecar got 0 non-2xx answers | yes |",
	)
}

func TestGoalOfZeroErrorsCountsTheSidecarsFailedRequests(t *testing.T) {
	ov := &Overview{Provisioning: []*ScenarioResult{scenarioWith(100, []float64{50}, []float64{50}, 3)}}
	want := "| zero errors in every provisioning run | 2 runs: 0 failed calls, unbound claims or leftover volumes; the sidecar got 6 non-2xx answers (deletion: delete persistentvolumes 404) | **no** |"
	if md := ov.Markdown(); !strings.Contains(md, want) {
		t.Errorf("report lacks %q:\n%s", want, md)
	}
}

func TestMemoryGoalIsJudgedByTheWorstRun(t *testing.T) {
	ov := &Overview{Memory: memoryReportWith(map[string][]float64{"gate on": {120, 151}, "gate off": {110}})}
	if md := ov.Markdown(); !strings.Contains(md, "< 150 MiB | worst run 151.0 MiB") || !strings.Contains(md, "| **no** |") {
		t.Errorf("memory goal row wrong:\n%s", md)
	}
}

func TestPlotsAreReadablePNGs(t *testing.T) {
	dir := t.TempDir()
	ov := &Overview{
		Provisioning: []*ScenarioResult{scenarioWith(100, []float64{45, 46, 47}, []float64{50, 52, 51}, 0), scenarioWith(1000, []float64{40}, []float64{50}, 0)},
		Memory:       memoryReportWith(map[string][]float64{"gate on": {120, 131}, "gate off": {118}}),
	}
	plots, err := DrawPlots(ov, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"throughput.png", "latency.png", "requests.png", "latency-provisioning-100-qps200.png", "latency-provisioning-1000-qps200.png", "memory.png"}
	for file, img := range decodePlots(t, dir, plots, want) {
		if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 300 {
			t.Errorf("%s is %v, too small to read", file, b)
		}
	}
}

// decodePlots checks that plots are the files want, in order, each a PNG
// in dir, and returns them decoded by file name.
func decodePlots(t *testing.T, dir string, plots []Plot, want []string) map[string]image.Image {
	t.Helper()
	if len(plots) != len(want) {
		t.Fatalf("plots = %v, want %v", plots, want)
	}
	images := map[string]image.Image{}
	for i, p := range plots {
		if p.File != want[i] {
			t.Errorf("plot %d = %s, want %s", i, p.File, want[i])
		}
		f, err := os.Open(filepath.Join(dir, p.File))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p.File, err)
		}
		images[p.File] = img
	}
	return images
}

func TestEmbeddedReportsKeepTheirHeadingsUnderTheOverviews(t *testing.T) {
	got := demoteHeadings(dropTitle("# Title\n\ntext\n## Runs\n```\n# not a heading\n```\n"), 2)
	want := "text\n#### Runs\n```\n# not a heading\n```\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
