package report

import (
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// writeScale embeds the parts that measure where upstream's users hit
// walls: a backend that throttles its API, and capacity tracking on many
// nodes whose capacity moves. Their plots are in the same folder.
func (o *Overview) writeScale(b *strings.Builder) {
	if o.Throttled != nil {
		b.WriteString("## A backend that rate-limits its API\n\n")
		b.WriteString("From [throttled.md](throttled.md):\n\n")
		b.WriteString(demoteHeadings(dropTitle(o.Throttled.Markdown()), 2))
	}
	if o.Capacity != nil {
		b.WriteString("## Capacity tracking on many nodes whose capacity moves\n\n")
		b.WriteString("From [capacity.md](capacity.md):\n\n")
		b.WriteString(demoteHeadings(dropTitle(o.Capacity.Markdown()), 2))
	}
}

// scaleGoals are the throttled-backend and capacity parts' goals, and
// that their runs went without problems.
func (o *Overview) scaleGoals() []bench.Goal {
	var goals []bench.Goal
	if o.Throttled != nil {
		goals = append(goals, o.Throttled.Goals()...)
		goals = append(goals, bench.Goal{Goal: "zero errors in every throttled-backend run", Measured: problemCount(o.Throttled.HasProblems()), Met: !o.Throttled.HasProblems()})
	}
	if o.Capacity != nil {
		goals = append(goals, o.Capacity.Goals()...)
		goals = append(goals, bench.Goal{Goal: "zero errors in every capacity run", Measured: problemCount(o.Capacity.HasProblems()), Met: !o.Capacity.HasProblems()})
	}
	return goals
}
