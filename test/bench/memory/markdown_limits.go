package memory

import (
	"fmt"
	"strings"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// writeMarkdown is the sweep's section: how limits were set and judged,
// each try and its verdict, and the answer.
func (s *LimitSweep) writeMarkdown(b *strings.Builder, batch int) {
	fmt.Fprintf(b, "### Memory limit with GOMEMLIMIT: the smallest that holds %s claims and PVs\n\n", bench.Thousands(s.Pairs))
	how := fmt.Sprintf("a hard limit on the process (%s of a memory cgroup of its own, made under the benchmark's: the kernel reclaims its page cache, then kills it, as in a container with that limit), run from a copy of its binary dropped from the page cache before each try, so that the binary's pages it reads are charged to its cgroup, as a container's image is", s.Hard)
	if s.Hard == "" {
		how = fmt.Sprintf("no hard limit (%s): it holds only if its peak RSS stays at or below the limit", s.NoHard)
	}
	fmt.Fprintf(b, "%s runs again at %s pairs under a memory limit: %s. "+
		"Its `GOMEMLIMIT` is the limit less %d MiB, the binary's resident code and data (`RssFile`, %.1f MiB in the runs without a limit), which the Go runtime does not count: a GOMEMLIMIT equal to the limit would leave them no room, and below the peak without a limit the kernel would thrash the binary's pages. "+
		"A limit holds if the sidecar stays up, syncs, goes idle, gets its first claim Bound and provisions and deletes its %d claims, each step within %s (a sidecar thrashing at its limit does not die, it crawls). "+
		"The limits come from the ladder %v MiB: the first tried is the smallest at or above %s's peak RSS without a limit, which should hold, then each smaller one, until one does not hold.\n\n",
		s.Variant, bench.Thousands(s.Pairs), how, s.HeadroomMiB, s.BinaryMiB, batch, s.TryTimeout, s.Ladder, s.Variant)
	t := bench.Table{
		Header: []string{"memory limit", "GOMEMLIMIT", "hard", "verdict", "peak RSS", "cgroup peak", "sync time", "first claim Bound", "CPU in all", "heap in use at end"},
		Right:  []bool{true, true, false, false, true, true, true, true, true, true},
	}
	for _, tr := range s.Tries {
		hard := "no"
		if tr.Hard {
			hard = "yes"
		}
		verdict := "does not hold: " + tr.Verdict
		if tr.Holds {
			verdict = "**holds**"
		}
		run := tr.Run
		t.Add(fmt.Sprintf("%d MiB", tr.LimitMiB), fmt.Sprintf("%d MiB", tr.GoMemLimitMiB), hard, verdict, fmtMiB(run.End.PeakRSS), fmtMiB(tr.CgroupPeak),
			bench.FmtSeconds(run.SyncTime), bench.FmtSeconds(run.FirstClaimBound), bench.FmtSeconds(run.CPU), fmtMiB(run.Heap.HeapInuse))
	}
	if len(s.Tries) > 0 {
		t.Write(b)
		if s.Hard != "" {
			fmt.Fprintf(b, "Peak RSS is the process's VmHWM (of one the kernel killed, its last reading, taken every %s); the cgroup's peak counts page cache too (the binary's pages, the sidecar's log), which the kernel lets grow to the limit before it reclaims, so it says little but that the limit was reached.\n\n", memorySample)
		}
	}
	b.WriteString(s.Summary() + "\n\n")
}
