package benchtest

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/provisioning"
)

// Baseline is a baseline variant without running a binary.
var Baseline = bench.Variant{Name: bench.BaselineName, Binary: "/opt/upstream/csi-provisioner-v5.1.0", RBACManifest: bench.UpstreamRBACManifest, Version: "csi-provisioner-v5.1.0 unknown"}

// WithBaseline are the gate on and off and the baseline.
var WithBaseline = []bench.Variant{bench.GateOn, bench.GateOff, Baseline}

// Figures are the figures of one variant's runs in a test scenario.
type Figures struct {
	Throughput []float64 // claims Bound / s, one per run
	P50, P99   float64
	// ProvRequests and DelRequests are the sidecar's requests per volume.
	ProvRequests, DelRequests float64
}

// Scenario is a scenario whose variants (ours first, then the baseline if
// given) had the given figures, by variant name.
func Scenario(claims int, limits provisioning.ClientLimits, deletes bool, variants []bench.Variant, figs map[string]Figures) *provisioning.ScenarioResult {
	s := provisioning.Scenario{Claims: claims, Limits: limits, SkipDeletion: !deletes}
	for _, v := range variants {
		s.Runs = max(s.Runs, len(figs[v.Name].Throughput))
	}
	o := s.Options(provisioning.DefaultOptions())
	o.Variants = variants
	rep := &provisioning.Report{Title: s.Name(), Options: o}
	order := 0
	for _, v := range variants {
		f := figs[v.Name]
		vr := &provisioning.VariantResult{Variant: v}
		for i, thr := range f.Throughput {
			order++
			run := &provisioning.RunResult{
				Variant: v.Name, Run: i + 1, Order: order, Claims: claims, Bound: claims,
				ProvisionWall:   time.Duration(float64(claims) / thr * float64(time.Second)),
				Latency:         provisioning.Percentiles{P50: f.P50, P99: f.P99},
				Latencies:       []float64{f.P50 / 2, f.P50, f.P99},
				Provisioning:    provisioning.PhaseRequests{Sidecar: map[string]int{"create persistentvolumes": int(f.ProvRequests * float64(claims))}},
				Deletion:        provisioning.PhaseRequests{Sidecar: map[string]int{"delete persistentvolumes": int(f.DelRequests * float64(claims))}},
				DeletionSkipped: !deletes,
			}
			if deletes {
				run.PVsGoneWall = 10 * time.Second
			}
			vr.Runs = append(vr.Runs, run)
		}
		rep.Variants = append(rep.Variants, vr)
	}
	return &provisioning.ScenarioResult{Scenario: s, Report: rep}
}

// GateScenario is a scenario of the tuned limits whose runs had the given
// throughputs (claims Bound per second), gate on and gate off alike in
// shape, and sidecarErrors 404s on deleting PVs in each run.
func GateScenario(claims int, on, off []float64, sidecarErrors int) *provisioning.ScenarioResult {
	s := provisioning.Scenario{Claims: claims, Runs: len(on), Limits: provisioning.TunedLimits}
	rep := &provisioning.Report{Title: s.Name(), Options: s.Options(provisioning.DefaultOptions())}
	order := 0
	for _, v := range []struct {
		variant bench.Variant
		thr     []float64
	}{{bench.GateOn, on}, {bench.GateOff, off}} {
		vr := &provisioning.VariantResult{Variant: v.variant}
		for i, thr := range v.thr {
			order++
			run := &provisioning.RunResult{
				Variant: v.variant.Name, Run: i + 1, Order: order, Claims: claims, Bound: claims,
				ProvisionWall: time.Duration(float64(claims) / thr * float64(time.Second)),
				Latency:       provisioning.Percentiles{P50: 1, P99: 2},
				Latencies:     []float64{0.5, 1, 2},
				Provisioning:  provisioning.PhaseRequests{Sidecar: map[string]int{"create persistentvolumes": claims}},
				Deletion:      provisioning.PhaseRequests{Sidecar: map[string]int{"delete persistentvolumes": claims}, SidecarErrors: map[string]int{}},
			}
			if sidecarErrors > 0 {
				run.Deletion.SidecarErrors["delete persistentvolumes 404"] = sidecarErrors
			}
			vr.Runs = append(vr.Runs, run)
		}
		rep.Variants = append(rep.Variants, vr)
	}
	return &provisioning.ScenarioResult{Scenario: s, Report: rep}
}
