package memory

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// LimitSweep is the search for the smallest memory limit, with GOMEMLIMIT
// set to match, with which the shipped settings hold the largest size.
type LimitSweep struct {
	// Variant is the shipped variant, run with each limit; Pairs the
	// size.
	Variant string `json:"variant"`
	Pairs   int    `json:"pairs"`
	// Hard names the hard limit the tries ran under (a memory cgroup's
	// limit file); empty when none could be set, NoHard saying why, and
	// then "holds" is judged by the process alone.
	Hard   string `json:"hard,omitempty"`
	NoHard string `json:"noHard,omitempty"`
	// UnlimitedPeakMiB is the variant's median peak RSS at Pairs without
	// a limit, 0 when not measured: the sweep starts at the smallest
	// limit at or above it.
	UnlimitedPeakMiB float64 `json:"unlimitedPeakMiB"`
	// BinaryMiB is the part of it that was the binary's code and data
	// (RssFile, median), which counts against a hard limit but not
	// against GOMEMLIMIT; 0 when not read.
	BinaryMiB float64 `json:"binaryMiB"`
	// HeadroomMiB is what GOMEMLIMIT left of each limit for the binary
	// (LimitOptions.HeadroomMiB, or BinaryMiB rounded up).
	HeadroomMiB int `json:"headroomMiB"`
	// TryTimeout bounds each wait of a try: the sync, the idle, the first
	// claim, the batch and its deletion.
	TryTimeout time.Duration `json:"tryTimeout"`
	// Ladder are the limits the sweep could try; Tries the ones it did,
	// in order.
	Ladder []int       `json:"ladderMiB"`
	Tries  []*LimitTry `json:"tries"`
}

// LimitTry is one sidecar run under a limit.
type LimitTry struct {
	// LimitMiB is the memory limit; GoMemLimitMiB the GOMEMLIMIT the
	// sidecar ran with, the limit less the headroom.
	LimitMiB      int `json:"limitMiB"`
	GoMemLimitMiB int `json:"goMemLimitMiB"`
	// Hard tells whether the run was under a hard limit of LimitMiB.
	Hard bool        `json:"hard"`
	Run  *SidecarRun `json:"run"`
	// CgroupPeak is the most the hard limit's cgroup held, page cache
	// included, in bytes; OOMKills how many processes the kernel killed
	// in it.
	CgroupPeak int64  `json:"cgroupPeak,omitempty"`
	OOMKills   int    `json:"oomKills"`
	Holds      bool   `json:"holds"`
	Verdict    string `json:"verdict"`
}

// sweepLimits runs the shipped variant with one limit after another at
// the largest size (the cluster holds it by now), from the smallest of
// the ladder at or above its peak RSS without a limit down, and stops
// after the first that does not hold: a smaller one would not either, and a
// sidecar killed in the middle of its batch leaves claims behind that
// would burden the next.
func (m *runner) sweepLimits(ctx context.Context) *LimitSweep {
	o := m.opts
	var shipped *bench.Variant
	for i := range o.Variants {
		if o.Variants[i].Name == o.Shipped {
			shipped = &o.Variants[i]
		}
	}
	if shipped == nil {
		m.rep.Setup.Problems = append(m.rep.Setup.Problems, fmt.Sprintf("memory limit sweep: the shipped variant %q is none of the variants", o.Shipped))
		return nil
	}
	pairs := o.largest()
	peak := m.rep.PeakRSSAt(shipped.Name, pairs).Median
	sw := &LimitSweep{Variant: shipped.Name, Pairs: pairs, Ladder: o.Limits.LadderMiB, TryTimeout: cmp.Or(o.Limits.TryTimeout, o.PhaseTimeout)}
	if !math.IsNaN(peak) {
		sw.UnlimitedPeakMiB = peak
	}
	if file := m.rep.SpreadAt(shipped.Name, pairs, func(r *SidecarRun) float64 { return mibOrNaN(r.End.RSSFile) }).Median; !math.IsNaN(file) {
		sw.BinaryMiB = file
	}
	sw.HeadroomMiB = cmp.Or(o.Limits.HeadroomMiB, int(math.Ceil(sw.BinaryMiB)))
	if !o.Limits.Hard {
		sw.NoHard = "not asked for (LimitOptions.Hard)"
	}
	plan := limitPlan(o.Limits.LadderMiB, peak, sw.HeadroomMiB)
	m.progress("[%s] memory limit sweep of %s at %s pairs (peak RSS without a limit %.1f MiB, GOMEMLIMIT %d MiB below the limit): up to %d limits, %v MiB", m.elapsed(), shipped.Name, bench.Thousands(pairs), peak, sw.HeadroomMiB, len(plan), plan)
	for _, mib := range plan {
		t := m.tryLimit(ctx, *shipped, pairs, mib, sw)
		sw.Tries = append(sw.Tries, t)
		m.progress("  %d MiB: %s", mib, t.Verdict)
		if !t.Holds || ctx.Err() != nil {
			break
		}
	}
	return sw
}

// tryLimit runs the variant under a limit of mib MiB, a hard one if the
// sweep can set it, with GOMEMLIMIT the headroom below, and judges
// whether it held.
func (m *runner) tryLimit(ctx context.Context, v bench.Variant, pairs, mib int, sw *LimitSweep) *LimitTry {
	m.order++
	goMem := mib - sw.HeadroomMiB
	sr := sidecarRun{
		variant: v, pairs: pairs, run: 1, order: m.order,
		label:    fmt.Sprintf("%s, limit %d MiB, GOMEMLIMIT=%dMiB", v.Name, mib, goMem),
		env:      []string{fmt.Sprintf("GOMEMLIMIT=%dMiB", goMem)},
		timeouts: timeouts{sync: sw.TryTimeout, phase: sw.TryTimeout},
		mayDie:   true,
	}
	m.progress("[%s] %s pairs: %s", m.elapsed(), bench.Thousands(pairs), sr.label)
	var cg *memoryCgroup
	if sw.NoHard == "" {
		var err error
		if cg, err = m.limitedBinary(v, mib, &sr); err != nil {
			sw.NoHard = err.Error()
			m.progress("  no hard limit, judged by the process alone: %v", err)
		} else {
			sw.Hard = cg.kind()
		}
	}
	t := &LimitTry{LimitMiB: mib, GoMemLimitMiB: goMem, Hard: cg != nil}
	t.Run = m.runSidecar(ctx, sr)
	if cg != nil {
		t.CgroupPeak, t.OOMKills = cg.peak(), cg.oomKills()
		if err := cg.remove(); err != nil {
			t.Run.Problems = append(t.Run.Problems, fmt.Sprintf("remove the memory cgroup: %v", err))
		}
	}
	t.Holds, t.Verdict = judgeLimit(t, m.opts.Batch)
	return t
}

// limitedBinary makes the cgroup of a try and a wrapper of the variant's
// binary that enters it, and points the run at the wrapper.
func (m *runner) limitedBinary(v bench.Variant, mib int, sr *sidecarRun) (*memoryCgroup, error) {
	binary := v.Binary
	if binary == "" {
		dir := m.opts.BinDir
		if dir == "" {
			var err error
			if dir, err = framework.DefaultBinDir(); err != nil {
				return nil, err
			}
		}
		binary = filepath.Join(dir, "csi-provisioner")
	}
	// One copy for the sweep, dropped from the page cache before each
	// try.
	fresh, err := filepath.Abs(filepath.Join(m.workDir, "csi-provisioner-limited"))
	if err != nil {
		return nil, err
	}
	if err := freshBinary(binary, fresh); err != nil {
		return nil, fmt.Errorf("a copy of %s: %w", binary, err)
	}
	cg, err := newMemoryCgroup(fmt.Sprintf("csi-bench-%d-%d", os.Getpid(), sr.order), int64(mib)<<20)
	if err != nil {
		return nil, err
	}
	wrapper := filepath.Join(m.workDir, fmt.Sprintf("csi-provisioner-limited-%dMiB.sh", mib))
	if err := cg.wrapper(wrapper, fresh); err != nil {
		_ = cg.remove()
		return nil, err
	}
	sr.binary = wrapper
	return cg, nil
}
