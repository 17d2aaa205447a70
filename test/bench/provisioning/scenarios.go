package provisioning

import (
	"fmt"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// ClientLimits is a client configuration of the sidecar that the
// provisioning benchmark compares.
type ClientLimits struct {
	// Name labels the configuration in the report.
	Name string `json:"name"`
	// Short labels it in plots and file names.
	Short string `json:"short"`
	// Args are the sidecar flags that set it; none means its defaults.
	Args []string `json:"args"`
}

var (
	// DefaultLimits is what a user gets without tuning: the sidecar's
	// (and upstream's) 5 QPS, 10 burst and 100 workers.
	DefaultLimits = ClientLimits{Name: "default client limits (5 QPS, 10 burst)", Short: "default"}
	// TunedLimits is the configuration recommended for large clusters.
	TunedLimits = ClientLimits{
		Name:  "200 QPS, 400 burst, 100 workers",
		Short: "qps200",
		Args:  []string{"--kube-api-qps=200", "--kube-api-burst=400", "--worker-threads=100"},
	}
)

// Scenario is one size and client configuration of the provisioning
// benchmark; each runs both gate variants Runs times.
type Scenario struct {
	Claims int          `json:"claims"`
	Runs   int          `json:"runs"`
	Limits ClientLimits `json:"limits"`
	// SkipDeletion ends the runs after provisioning (see Options).
	SkipDeletion bool          `json:"skipDeletion,omitempty"`
	PhaseTimeout time.Duration `json:"phaseTimeout"`
}

// Name labels the scenario in the report.
func (s Scenario) Name() string {
	return fmt.Sprintf("%s claims, %s", bench.Thousands(s.Claims), s.Limits.Name)
}

// Label is the scenario's short name, for plots.
func (s Scenario) Label() string {
	return fmt.Sprintf("%s claims, %s", bench.Thousands(s.Claims), s.Limits.Short)
}

// Slug names the scenario's files.
func (s Scenario) Slug() string {
	return fmt.Sprintf("provisioning-%d-%s", s.Claims, s.Limits.Short)
}

// Options returns base for this scenario: its size, runs and limits. The
// limits' flags replace base's of the same name, so that base's defaults
// (the tuned limits) do not leak into the default-limits scenario.
func (s Scenario) Options(base Options) Options {
	o := base
	o.Claims, o.Runs, o.SkipDeletion = s.Claims, s.Runs, s.SkipDeletion
	o.Latencies = true
	o.ProfileTag = fmt.Sprintf("%d-%s", s.Claims, s.Limits.Short)
	if s.PhaseTimeout > 0 {
		o.PhaseTimeout = s.PhaseTimeout
	}
	var args []string
	for _, a := range base.SidecarArgs {
		if !isLimitFlag(a) {
			args = append(args, a)
		}
	}
	o.SidecarArgs = append(args, s.Limits.Args...)
	return o
}

// isLimitFlag tells the flags that ClientLimits set.
func isLimitFlag(arg string) bool {
	for _, f := range []string{"--kube-api-qps", "--kube-api-burst", "--worker-threads"} {
		if arg == f || strings.HasPrefix(arg, f+"=") {
			return true
		}
	}
	return false
}

// DefaultScenarios is the full benchmark's matrix, sized to fit its 20
// minutes on a 2-core machine together with the other benchmarks:
//   - the tuned limits at 100, 1,000 and 5,000 claims; deletion is
//     measured at 100 and 1,000 (5,000 deletions would add some 4 minutes
//     and show the same rate), and 5,000 runs once per variant (a pair of
//     runs takes 3.5 minutes);
//   - the default limits at 100 claims, provisioning only, twice per
//     variant. At 5 QPS the sidecar's client limit sets the pace alone
//     (the gate's two finalizer patches per volume take turns with the PV
//     creation and the events), so 100 claims take half a minute to a
//     minute and a half per run, and 1,000 would take 10 to 15 minutes:
//     its throughput does not depend on the count.
func DefaultScenarios() []Scenario {
	return []Scenario{
		{Claims: 100, Runs: 3, Limits: TunedLimits, PhaseTimeout: 2 * time.Minute},
		{Claims: 1000, Runs: 3, Limits: TunedLimits, PhaseTimeout: 5 * time.Minute},
		{Claims: 5000, Runs: 1, Limits: TunedLimits, SkipDeletion: true, PhaseTimeout: 8 * time.Minute},
		{Claims: 100, Runs: 2, Limits: DefaultLimits, SkipDeletion: true, PhaseTimeout: 5 * time.Minute},
	}
}

// BaselineScenarios is the full matrix when a baseline (an upstream
// release) runs too: DefaultScenarios with 5 runs instead of 3 of the tuned
// limits at 100 and 1,000 claims, since the goal against the baseline there
// is on the median of 5 interleaved runs, plus the default limits at 1,000
// claims, provisioning only, once per variant. At 5 QPS the gate off and
// the baseline take some 200 s for 1,000 claims, the gate on, with two more
// writes per claim, about twice that.
func BaselineScenarios() []Scenario {
	scenarios := DefaultScenarios()
	for i := range scenarios {
		if s := &scenarios[i]; s.Limits.Short == TunedLimits.Short && s.Claims <= 1000 {
			s.Runs = baselineTunedRuns
		}
	}
	return append(scenarios,
		Scenario{Claims: 1000, Runs: 1, Limits: DefaultLimits, SkipDeletion: true, PhaseTimeout: 15 * time.Minute})
}

// baselineTunedRuns is how many runs per variant the goal against the
// baseline at the tuned limits takes the median of.
const baselineTunedRuns = 5

// QuickScenarios is BENCH_QUICK=1: one run of each variant at the smallest
// sizes, enough to see that every part of the benchmark works.
func QuickScenarios() []Scenario {
	return []Scenario{
		{Claims: 100, Runs: 1, Limits: TunedLimits, PhaseTimeout: 2 * time.Minute},
		{Claims: 20, Runs: 1, Limits: DefaultLimits, SkipDeletion: true, PhaseTimeout: 2 * time.Minute},
	}
}
