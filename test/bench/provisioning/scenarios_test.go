package provisioning

import (
	"slices"
	"testing"
)

func TestDefaultLimitsScenarioDropsTheTunedLimitFlags(t *testing.T) {
	base := DefaultOptions()
	base.SidecarArgs = append(base.SidecarArgs, "--timeout=30s")
	got := Scenario{Claims: 100, Runs: 2, Limits: DefaultLimits}.Options(base).SidecarArgs
	if !slices.Equal(got, []string{"--timeout=30s"}) {
		t.Fatalf("sidecar args = %q, want only the flag that is not a client limit", got)
	}
}

func TestTunedScenarioSetsItsLimitsOnce(t *testing.T) {
	got := Scenario{Claims: 1000, Runs: 3, Limits: TunedLimits}.Options(DefaultOptions()).SidecarArgs
	if !slices.Equal(got, TunedLimits.Args) {
		t.Fatalf("sidecar args = %q, want %q", got, TunedLimits.Args)
	}
}

func TestScenarioOptionsCarrySizeRunsAndDeletion(t *testing.T) {
	o := Scenario{Claims: 5000, Runs: 2, Limits: TunedLimits, SkipDeletion: true}.Options(DefaultOptions())
	if o.Claims != 5000 || o.Runs != 2 || !o.SkipDeletion || !o.Latencies {
		t.Fatalf("options = claims %d, runs %d, skip deletion %v, latencies %v", o.Claims, o.Runs, o.SkipDeletion, o.Latencies)
	}
}

func TestScenarioSlugsAreDistinct(t *testing.T) {
	for _, list := range [][]Scenario{DefaultScenarios(), BaselineScenarios(), QuickScenarios()} {
		slugs := map[string]bool{}
		for _, s := range list {
			if slugs[s.Slug()] {
				t.Fatalf("two scenarios share the file name %s", s.Slug())
			}
			slugs[s.Slug()] = true
		}
	}
}

func TestBaselineMatrixCoversTheDefaultLimitsAt100And1000Claims(t *testing.T) {
	var sizes []int
	for _, s := range BaselineScenarios() {
		if s.Limits.Short == DefaultLimits.Short {
			sizes = append(sizes, s.Claims)
			if !s.SkipDeletion {
				t.Errorf("%s measures deletion; the default limits measure provisioning only", s.Name())
			}
		}
	}
	if !slices.Equal(sizes, []int{100, 1000}) {
		t.Errorf("default-limits sizes with a baseline = %v, want [100 1000]", sizes)
	}
	if n := len(BaselineScenarios()) - len(DefaultScenarios()); n != 1 {
		t.Errorf("the baseline adds %d scenarios, want 1 (the tuned ones are kept)", n)
	}
}

func TestBaselineMatrixRunsTheTunedGoalSizesFiveTimes(t *testing.T) {
	runs := map[int]int{}
	for _, s := range BaselineScenarios() {
		if s.Limits.Short == TunedLimits.Short {
			runs[s.Claims] = s.Runs
		}
	}
	if runs[100] != 5 || runs[1000] != 5 {
		t.Errorf("tuned runs per variant with a baseline = %v, want 5 at 100 and 1,000 claims", runs)
	}
	if runs[5000] != 1 {
		t.Errorf("tuned runs at 5,000 claims with a baseline = %d, want 1", runs[5000])
	}
	for _, s := range DefaultScenarios() {
		if s.Limits.Short == TunedLimits.Short && s.Claims <= 1000 && s.Runs != 3 {
			t.Errorf("without a baseline %s runs %d times, want 3", s.Name(), s.Runs)
		}
	}
}
