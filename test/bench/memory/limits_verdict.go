package memory

import (
	"fmt"
	"math"
	"slices"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// limitPlan is the limits a sweep tries, in MiB, largest first: the
// smallest of the ladder at or above the peak RSS without a limit, which
// should hold and shows that it does under a hard limit too, then every
// smaller one above the headroom, which GOMEMLIMIT leaves of each; the
// whole ladder when that peak is not known.
func limitPlan(ladder []int, unlimitedPeakMiB float64, headroomMiB int) []int {
	plan := slices.Clone(ladder)
	slices.Sort(plan)
	slices.Reverse(plan)
	plan = slices.DeleteFunc(slices.Compact(plan), func(mib int) bool { return mib <= headroomMiB })
	if math.IsNaN(unlimitedPeakMiB) || unlimitedPeakMiB <= 0 {
		return plan
	}
	first := 0
	for i, mib := range plan {
		if float64(mib) >= unlimitedPeakMiB {
			first = i
		}
	}
	return plan[first:]
}

// judgeLimit says whether a try held its limit: the sidecar stayed up
// (the kernel did not kill it), synced, provisioned the first claim and
// its batch and cleaned up after it, with no problem; and without a hard
// limit, its peak RSS stayed at or below the limit.
func judgeLimit(t *LimitTry, batch int) (holds bool, verdict string) {
	run := t.Run
	firstProblem := func() string {
		if len(run.Problems) > 0 {
			return ": " + run.Problems[0]
		}
		return ""
	}
	peak := measure.MiB(run.End.PeakRSS)
	switch {
	case t.OOMKills > 0:
		return false, fmt.Sprintf("killed by the kernel at the hard limit (peak RSS %.1f MiB when last read, cgroup peak %s)", peak, fmtMiB(t.CgroupPeak))
	case run.SyncTime <= 0:
		return false, "did not sync" + firstProblem()
	case run.FirstClaimBound <= 0:
		return false, "the first claim was not Bound" + firstProblem()
	case run.BatchBound < batch:
		return false, fmt.Sprintf("provisioned %d of %d claims in time", run.BatchBound, batch)
	case len(run.Problems) > 0:
		return false, "failed" + firstProblem()
	case run.ClaimsLeft > 0 || run.PVsLeft > 0 || run.VolumesLeft > 0:
		return false, run.leftovers()[0]
	case !t.Hard && peak > float64(t.LimitMiB):
		return false, fmt.Sprintf("peak RSS %.1f MiB, above the limit", peak)
	}
	v := fmt.Sprintf("held: peak RSS %.1f MiB", peak)
	if t.Hard {
		v += fmt.Sprintf(", cgroup peak %s", fmtMiB(t.CgroupPeak))
	}
	return true, v + fmt.Sprintf(", synced in %.2f s, first claim Bound after %.2f s", run.SyncTime.Seconds(), run.FirstClaimBound.Seconds())
}

// Smallest is the smallest limit that held, in MiB, with every larger
// one tried holding too; ok is false when none held.
func (s *LimitSweep) Smallest() (mib int, ok bool) {
	for _, t := range s.Tries {
		if !t.Holds {
			break
		}
		mib, ok = t.LimitMiB, true
	}
	return mib, ok
}

// Summary is the sweep's answer in a sentence.
func (s *LimitSweep) Summary() string {
	at := fmt.Sprintf("with %s claims and PVs cached", bench.Thousands(s.Pairs))
	without := "its peak RSS without a limit was not measured"
	if s.UnlimitedPeakMiB > 0 {
		without = fmt.Sprintf("its peak RSS without a limit was %.1f MiB", s.UnlimitedPeakMiB)
	}
	if len(s.Tries) == 0 {
		return fmt.Sprintf("No memory limit was tried for %s %s (%s).", s.Variant, at, without)
	}
	smallest, ok := s.Smallest()
	last := s.Tries[len(s.Tries)-1]
	switch {
	case !ok:
		return fmt.Sprintf("None of the limits tried held %s for %s: the smallest that holds is above %d MiB (%s).", at, s.Variant, last.LimitMiB, without)
	case last.Holds:
		return fmt.Sprintf("Every limit tried held %s for %s, down to %d MiB with GOMEMLIMIT=%dMiB, the last tried (%s); smaller ones were not tried.", at, s.Variant, smallest, smallest-s.HeadroomMiB, without)
	}
	return fmt.Sprintf("The smallest memory limit that holds %s for %s is %d MiB, with GOMEMLIMIT=%dMiB; %d MiB did not (%s). For comparison, %s.", at, s.Variant, smallest, smallest-s.HeadroomMiB, last.LimitMiB, last.Verdict, without)
}
