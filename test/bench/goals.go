package bench

import (
	"fmt"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// Goal is one of the project's targets and where the benchmark found it.
type Goal struct {
	Goal     string `json:"goal"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
	// Value and Target are the figure and its bound for a goal that is a
	// ratio to the baseline; Value is nil when it was not measured.
	Value  *float64 `json:"value,omitempty"`
	Target float64  `json:"target,omitempty"`
}

// RatioGoal judges ours / base, the ratio of two medians, against target:
// at most target when atMost, at least otherwise. Not measured is not met.
func RatioGoal(name string, ours, base measure.Spread, atMost bool, target float64, prec int, unit string) Goal {
	q := measure.Ratio(ours, base)
	g := Goal{Goal: name, Target: target, Value: RatioValue(q)}
	if g.Value == nil {
		g.Measured = "not measured"
		return g
	}
	g.Measured = fmt.Sprintf("%.2f (%.*f%s vs %.*f%s)", q, prec, ours.Median, unit, prec, base.Median, unit)
	if atMost {
		g.Met = q <= target
	} else {
		g.Met = q >= target
	}
	return g
}
