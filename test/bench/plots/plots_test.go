package plots

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/benchtest"
	"github.com/csi-protect/external-provisioner/test/bench/claimdeletion"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
	"github.com/csi-protect/external-provisioner/test/bench/report"
)

func TestPlotsAreReadablePNGs(t *testing.T) {
	dir := t.TempDir()
	ov := &report.Overview{
		Provisioning:  []*provisioning.ScenarioResult{benchtest.GateScenario(100, []float64{45, 46, 47}, []float64{50, 52, 51}, 0), benchtest.GateScenario(1000, []float64{40}, []float64{50}, 0)},
		Memory:        benchtest.MemoryReport(map[string][]float64{"gate on": {120, 131}, "gate off": {118}}),
		PVCProtection: &claimdeletion.Report{Options: claimdeletion.QuickOptions(), Runs: []*claimdeletion.RunResult{{Controller: claimdeletion.KCMPVCProtection.Name, Run: 1, Duration: 8e9}, {Controller: claimdeletion.SidecarPVCProtection.Name, Run: 1, Duration: 3e9}}},
	}
	plots, err := Draw(ov, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"throughput.png", "latency.png", "requests.png", "latency-provisioning-100-qps200.png", "latency-provisioning-1000-qps200.png", "memory.png", "pvc-protection.png"}
	for file, img := range decodePlots(t, dir, plots, want) {
		if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 300 {
			t.Errorf("%s is %v, too small to read", file, b)
		}
	}
}

func TestPlotsShowTheBaseline(t *testing.T) {
	dir := t.TempDir()
	ov := &report.Overview{Provisioning: benchtest.BaselineScenarios(), Memory: benchtest.BaselineMemory()}
	plots, err := Draw(ov, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"throughput.png", "latency.png", "requests.png", "latency-provisioning-100-qps200.png", "latency-provisioning-1000-default.png", "memory.png"}
	decodePlots(t, dir, plots, want)
	if got := benchtest.Baseline.Label(); got != "baseline (upstream csi-provisioner-v5.1.0)" {
		t.Errorf("baseline's legend %q", got)
	}
	if got := bench.GateOn.Label(); got != "gate on" {
		t.Errorf("gate on's legend %q", got)
	}
}

// decodePlots checks that plots are the files want, in order, each a PNG
// in dir, and returns them decoded by file name.
func decodePlots(t *testing.T, dir string, plots []measure.Plot, want []string) map[string]image.Image {
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
