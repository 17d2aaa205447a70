package provisioning

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/claimwatch"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// phaseWindow is the time a phase's requests are counted in: from just
// before its first call to the start of the next phase. Busy ends when the
// phase's end condition was seen, the span for request rates.
type phaseWindow struct {
	measure.Window
	busy time.Time
}

// remaining is what is left of the phase timeout, at least a second so a
// late check still runs once.
func (r *runner) remaining(start time.Time) time.Duration {
	return max(time.Second, r.opts.PhaseTimeout-time.Since(start))
}

// endPhase ends a phase whose wait returned err: one that only ran out of
// time is a problem of the run, which goes on; anything else ends it. Then
// it lets the requests the phase caused but sent late arrive.
func (r *runner) endPhase(ctx context.Context, phase string, err error) error {
	if err != nil {
		if !r.timedOut(ctx) {
			return err
		}
		r.problem("%s: %v", phase, err)
	}
	time.Sleep(bench.Drain)
	return nil
}

func callStats(res bench.CallResult) CallStats {
	cs := CallStats{Duration: res.Last.Sub(res.First), Failed: res.Failed}
	if res.FirstErr != nil {
		cs.FirstErr = res.FirstErr.Error()
	}
	return cs
}

// provision creates the claims as fast as possible and waits until all are
// Bound and none carries the provisioning-protection finalizer any more (with
// the gate off, none ever does).
func (r *runner) provision(ctx context.Context, names []string) (phaseWindow, error) {
	r.progress("  provisioning %d claims", len(names))
	cpu0 := measure.SampleCPU(r.pids)
	waitProfiles := r.startProfiles(ctx)
	res := r.create(ctx, names, r.opts.Creator.Workers)
	start := res.First
	r.result.CreateCalls = callStats(res)
	err := r.waitCount(ctx, r.remaining(start), "every claim to be Bound", names, claimwatch.IsBound)
	if err == nil {
		err = r.waitCount(ctx, r.remaining(start), "no claim to carry the provisioning-protection finalizer", names, claimwatch.IsSettled)
	}
	cpu1 := measure.SampleCPU(r.pids)
	waitProfiles()
	if err := r.endPhase(ctx, "provisioning", err); err != nil {
		return phaseWindow{}, err
	}

	snap := r.tracker.Snapshot(names)
	var lastPV, lastBound, lastSettled time.Time
	var latency, handOver, sidecar, pvToBound []time.Duration
	for _, c := range snap {
		lastPV = later(lastPV, c.PVSeen)
		if !c.HandedOver.IsZero() && !c.Created.IsZero() {
			handOver = append(handOver, c.HandedOver.Sub(c.Created))
		}
		if !c.PVSeen.IsZero() && !c.HandedOver.IsZero() {
			sidecar = append(sidecar, c.PVSeen.Sub(c.HandedOver))
		}
		if c.Bound.IsZero() {
			continue
		}
		r.result.Bound++
		lastBound = later(lastBound, c.Bound)
		lastSettled = later(lastSettled, c.Settled)
		if !c.Created.IsZero() {
			latency = append(latency, c.Bound.Sub(c.Created))
		}
		if !c.PVSeen.IsZero() {
			pvToBound = append(pvToBound, c.Bound.Sub(c.PVSeen))
		}
	}
	allPVs := r.tracker.Count(names, claimwatch.IsPVSeen) == len(names)
	if allPVs {
		r.result.PVsWall = lastPV.Sub(start)
	}
	if r.result.Bound == len(names) {
		r.result.ProvisionWall = lastBound.Sub(start)
		if !lastSettled.IsZero() && err == nil {
			r.result.SettleWall = lastSettled.Sub(start)
		}
		if allPVs {
			r.result.BoundAtLastPV, r.result.TailBindRate = bindingTail(snap, lastPV, lastBound)
		}
	}
	r.result.Latency = percentilesOf(latency)
	if r.opts.Latencies {
		r.result.Latencies = sortedSeconds(latency)
	}
	r.result.HandOver = percentilesOf(handOver)
	r.result.SidecarPart = percentilesOf(sidecar)
	r.result.PVToBound = percentilesOf(pvToBound)
	r.result.CPUProvisioning = measure.UsageBetween(cpu0, cpu1)
	busy := later(lastBound, lastSettled)
	if busy.IsZero() {
		busy = cpu1.At
	}
	r.progress("  %d/%d Bound in %s (%.1f claims/s), p50 %.2fs p99 %.2fs",
		r.result.Bound, len(names), r.result.ProvisionWall.Round(time.Millisecond), r.result.Throughput(), r.result.Latency.P50, r.result.Latency.P99)
	return phaseWindow{Window: measure.Window{From: start, To: time.Now()}, busy: busy}, nil
}

// bindingTail returns the share of claims Bound when the last PV appeared,
// and how fast the rest were Bound after it: the PV binder's own pace, once
// nothing else of the benchmark was left to do.
func bindingTail(claims []claimwatch.ClaimTimes, lastPV, lastBound time.Time) (share, rate float64) {
	before := 0
	for _, c := range claims {
		if !c.Bound.After(lastPV) {
			before++
		}
	}
	share = float64(before) / float64(len(claims))
	if tail := lastBound.Sub(lastPV).Seconds(); tail > 0 {
		rate = float64(len(claims)-before) / tail
	}
	return share, rate
}

// deleteAll deletes every claim as fast as possible and waits until the claims
// and their PVs have left the API and the driver holds no volume.
func (r *runner) deleteAll(ctx context.Context, names []string) (phaseWindow, error) {
	r.progress("  deleting %d claims", len(names))
	cpu0 := measure.SampleCPU(r.pids)
	res := r.delete(ctx, names, r.opts.Creator.Workers)
	start := res.First
	r.result.DeleteCalls = callStats(res)
	err := r.stack.WaitFor(ctx, r.remaining(start), "every claim and PV to be gone", func(context.Context) (bool, error) {
		gone := r.tracker.Count(names, claimwatch.IsGone)
		pvs := r.tracker.LivePVs()
		return gone == len(names) && pvs == 0, fmt.Errorf("%d claims and %d PVs left", len(names)-gone, pvs)
	})
	var emptyAt time.Time
	if err == nil {
		emptyAt, err = r.waitDriverEmpty(ctx, r.remaining(start))
	}
	cpu1 := measure.SampleCPU(r.pids)
	if err := r.endPhase(ctx, "deletion", err); err != nil {
		return phaseWindow{}, err
	}

	var lastPV, lastClaim time.Time
	gone := 0
	for _, c := range r.tracker.Snapshot(names) {
		lastPV = later(lastPV, c.PVGone)
		if !c.Gone.IsZero() {
			gone++
			lastClaim = later(lastClaim, c.Gone)
		}
	}
	r.result.PVsLeft = r.tracker.LivePVs()
	r.result.ClaimsLeft = len(names) - gone
	if r.result.PVsLeft == 0 && !lastPV.IsZero() {
		r.result.PVsGoneWall = lastPV.Sub(start)
	}
	if r.result.ClaimsLeft == 0 {
		r.result.ClaimsGoneWall = lastClaim.Sub(start)
	}
	if !emptyAt.IsZero() {
		r.result.DriverEmptyWall = emptyAt.Sub(start)
	}
	r.result.CPUDeletion = measure.UsageBetween(cpu0, cpu1)
	r.progress("  PVs gone in %s, driver empty in %s", r.result.PVsGoneWall.Round(time.Millisecond), r.result.DriverEmptyWall.Round(time.Millisecond))
	return phaseWindow{Window: measure.Window{From: start, To: time.Now()}, busy: later(lastPV, emptyAt)}, nil
}

// countRequests reads the audit log and counts each phase's requests.
func (r *runner) countRequests(prov, del phaseWindow) error {
	records, err := measure.ReadAudit(r.stack.Cluster().AuditLogPath())
	if err != nil {
		return err
	}
	user := r.stack.SidecarUser()
	// The provisioning phase ends where deletion begins, so a late
	// request of provisioning is never lost between the two.
	prov.To = del.From
	r.result.Provisioning = countPhase(records, prov.Window, user)
	r.result.Deletion = countPhase(records, del.Window, user)
	windows := []measure.Window{prov.Window, del.Window}
	events, err := measure.CountLogLines(r.stack.Sidecar().LogFile(), windows, measure.EventKey)
	if err != nil {
		return err
	}
	calls, err := measure.CountLogLines(r.stack.Driver().LogFile(), windows, measure.DriverCallKey)
	if err != nil {
		return err
	}
	r.result.Provisioning.EventsRecorded, r.result.Deletion.EventsRecorded = events[0]["event"], events[1]["event"]
	r.result.Provisioning.DriverCalls, r.result.Deletion.DriverCalls = calls[0], calls[1]
	limit := SidecarLimit(slices.Concat(r.opts.SidecarArgs, r.variant.Args))
	r.result.SidecarRate, r.result.SidecarThrottled = sidecarRate(records, measure.Window{From: prov.From, To: prov.busy}, user, limit, mainClientOf(r.variant))
	return nil
}

func sortedSeconds(d []time.Duration) []float64 {
	out := make([]float64, 0, len(d))
	for _, x := range d {
		out = append(out, x.Seconds())
	}
	slices.Sort(out)
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
