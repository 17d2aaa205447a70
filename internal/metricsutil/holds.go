package metricsutil

import (
	"fmt"

	"k8s.io/component-base/metrics"
)

// Holds are the metrics every controller that holds objects' deletion with
// a finalizer shows beside its gauge of the objects held: since when it
// has held the oldest, and the finalizers it wrote.
type Holds struct {
	// OldestHoldAge is the seconds since the deletion of the object held
	// longest, 0 when none is held.
	OldestHoldAge *AgeGauge
	// FinalizersAdded and FinalizersRemoved count the finalizer writes
	// that succeeded. FinalizersAdded is nil where another package adds
	// the finalizer.
	FinalizersAdded   *metrics.Counter
	FinalizersRemoved *metrics.Counter
}

// HoldsHelp are the help texts of a Holds' metrics.
type HoldsHelp struct {
	// Object and Holder complete the age's help: "Seconds since the
	// deletion of the <Object> whose deletion <Holder> has held longest".
	Object, Holder string
	// Added and Removed are the counters' helps; no Added, no counter.
	Added, Removed string
}

// Holds returns the metrics oldest_hold_age_seconds,
// finalizers_added_total and finalizers_removed_total.
func (f Factory) Holds(help HoldsHelp) Holds {
	h := Holds{
		OldestHoldAge: f.AgeGauge("oldest_hold_age_seconds",
			fmt.Sprintf("Seconds since the deletion of the %s whose deletion %s has held longest; 0 when none is held.", help.Object, help.Holder)),
	}
	if help.Added != "" {
		h.FinalizersAdded = f.Counter("finalizers_added_total", help.Added)
	}
	h.FinalizersRemoved = f.Counter("finalizers_removed_total", help.Removed)
	return h
}
