package throttled

import (
	"context"
	"fmt"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/claimwatch"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// warmupTimeout bounds the warm-up claim's provisioning and deletion.
const warmupTimeout = 2 * time.Minute

// warmUp provisions and deletes one claim before anything is measured: the
// measured claims then do not pay for the sidecar's start and cache sync.
// The drain after it lets the backend's quota fill up again.
func (r *runner) warmUp(ctx context.Context) error {
	names := bench.ClaimNames("warmup", 1)
	if res := bench.CreateClaims(ctx, r.client, names, 1, bench.NewClaim, nil, nil); res.Failed > 0 {
		return res.FirstErr
	}
	if err := r.waitCount(ctx, warmupTimeout, "the warm-up claim to be Bound", names, claimwatch.IsSettled); err != nil {
		return err
	}
	if res := bench.DeleteClaims(ctx, r.client, bench.ClaimNamespace, names, 1, nil); res.Failed > 0 {
		return res.FirstErr
	}
	if err := r.waitCount(ctx, warmupTimeout, "the warm-up PV to be gone", names, claimwatch.IsPVGone); err != nil {
		return err
	}
	time.Sleep(bench.Drain)
	return nil
}

// provision creates the claims at once and waits until all are Bound: the
// phase's figure. It then waits, off the clock, until the sidecar has taken
// its provisioning-protection finalizer off every claim, so that deletion
// starts with the sidecar idle.
func (r *runner) provision(ctx context.Context, names []string) error {
	r.progress("  provisioning %d claims against %v calls/s", len(names), r.opts.APIRateLimit)
	p := &r.result.Provisioning
	m, err := r.startMeter("CreateVolume")
	if err != nil {
		return err
	}
	res := bench.CreateClaims(ctx, r.client, names, r.opts.Creator.Workers, bench.NewClaim, nil, r.tracker.MarkCreated)
	if res.Failed > 0 {
		return fmt.Errorf("%d claims not created, first: %w", res.Failed, res.FirstErr)
	}
	start := res.First
	waitErr := r.waitCount(ctx, r.remaining(start), "every claim to be Bound", names, claimwatch.IsBound)
	if waitErr == nil {
		waitErr = r.waitCount(ctx, r.remaining(start), "no claim to carry the provisioning-protection finalizer", names, claimwatch.IsSettled)
	}
	gaveUp, err := r.stopMeter(ctx, m, waitErr, p)
	if err != nil {
		return err
	}

	var lastBound time.Time
	var latency []time.Duration
	for _, c := range r.tracker.Snapshot(names) {
		if c.Bound.IsZero() {
			continue
		}
		r.result.Bound++
		if c.Bound.After(lastBound) {
			lastBound = c.Bound
		}
		if !c.Created.IsZero() {
			latency = append(latency, c.Bound.Sub(c.Created))
		}
	}
	p.Duration = lastBound.Sub(start)
	if r.result.Bound < len(names) {
		p.TimedOut = true
		p.Duration = gaveUp.Sub(start)
		r.progress("  gave up after %s: %d of %d claims Bound", p.Duration.Round(time.Second), r.result.Bound, len(names))
	} else if waitErr != nil {
		r.problem("provisioning: %v", waitErr)
	}
	// No NaN in results.json: the report reads 0 as not measured.
	r.result.LatencyP50, r.result.LatencyP99 = measure.ZeroIfNaN(measure.Percentile(latency, 50)), measure.ZeroIfNaN(measure.Percentile(latency, 99))
	r.progress("  %d/%d Bound in %s; CreateVolume %d failed, %d succeeded; sidecar CPU %.1f s",
		r.result.Bound, len(names), p.Duration.Round(time.Millisecond), p.Calls.Failed, p.Calls.Succeeded, p.SidecarCPU)
	return nil
}

// deleteAll deletes every claim at once and waits until their PVs are gone,
// which the sidecar does once DeleteVolume succeeded.
func (r *runner) deleteAll(ctx context.Context, names []string) error {
	r.progress("  deleting %d claims", len(names))
	p := &r.result.Deletion
	m, err := r.startMeter("DeleteVolume")
	if err != nil {
		return err
	}
	res := bench.DeleteClaims(ctx, r.client, bench.ClaimNamespace, names, r.opts.Creator.Workers, nil)
	if res.Failed > 0 {
		return fmt.Errorf("%d claims not deleted, first: %w", res.Failed, res.FirstErr)
	}
	start := res.First
	waitErr := r.stack.WaitFor(ctx, r.remaining(start), "every PV to be gone", func(context.Context) (bool, error) {
		left := r.tracker.LivePVs()
		return left == 0, fmt.Errorf("%d PVs left", left)
	})
	gaveUp, err := r.stopMeter(ctx, m, waitErr, p)
	if err != nil {
		return err
	}

	var lastGone time.Time
	for _, c := range r.tracker.Snapshot(names) {
		if c.PVGone.After(lastGone) {
			lastGone = c.PVGone
		}
	}
	r.result.PVsLeft = r.tracker.LivePVs()
	p.Duration = lastGone.Sub(start)
	if waitErr != nil {
		p.TimedOut = true
		p.Duration = gaveUp.Sub(start)
	}
	r.progress("  PVs gone in %s (%d left); DeleteVolume %d failed, %d succeeded; sidecar CPU %.1f s",
		p.Duration.Round(time.Millisecond), r.result.PVsLeft, p.Calls.Failed, p.Calls.Succeeded, p.SidecarCPU)
	return nil
}

// meter measures what a phase costs: the sidecar's CPU time and the
// driver's answers to the phase's method.
type meter struct {
	method string
	cpu    time.Duration
	calls  *framework.DriverCalls
}

// startMeter starts measuring a phase whose driver calls are method's.
func (r *runner) startMeter(method string) (meter, error) {
	m := meter{method: method, cpu: r.sidecarCPU()}
	var err error
	m.calls, err = r.driverCalls()
	return m, err
}

// stopMeter ends m once the phase's wait ended with waitErr, and returns
// when that was. A wait that failed otherwise than by running out of time
// ends the run: stopMeter returns its error. Else p gets the phase's calls
// and sidecar CPU time.
func (r *runner) stopMeter(ctx context.Context, m meter, waitErr error, p *Phase) (time.Time, error) {
	gaveUp := time.Now()
	cpu := r.sidecarCPU()
	if waitErr != nil && !r.timedOut(ctx) {
		return gaveUp, waitErr
	}
	// The driver logs a call as it answers; the drain lets the last
	// answers reach its log.
	time.Sleep(bench.Drain)
	calls, err := r.driverCalls()
	if err != nil {
		return gaveUp, err
	}
	p.Calls = callsOf(m.calls, calls, m.method)
	p.SidecarCPU = cpuSeconds(m.cpu, cpu)
	return gaveUp, nil
}

// waitCount waits until every named claim satisfies done.
func (r *runner) waitCount(ctx context.Context, timeout time.Duration, what string, names []string, done func(*claimwatch.ClaimTimes) bool) error {
	return r.stack.WaitFor(ctx, timeout, what, func(context.Context) (bool, error) {
		n := r.tracker.Count(names, done)
		return n == len(names), fmt.Errorf("%d of %d", n, len(names))
	})
}

// remaining is what is left of the phase timeout, at least a second so a
// late check still runs once.
func (r *runner) remaining(start time.Time) time.Duration {
	return max(time.Second, r.opts.PhaseTimeout-time.Since(start))
}

// timedOut tells, after a failed wait, whether the wait only ran out of
// time (recorded, the run goes on) rather than a component dying or the
// benchmark being canceled (the run ends).
func (r *runner) timedOut(ctx context.Context) bool {
	return ctx.Err() == nil && r.stack.CheckAlive() == nil
}

// driverCalls reads the driver's log: its answers so far, by method.
func (r *runner) driverCalls() (*framework.DriverCalls, error) {
	return framework.ReadDriverCalls(r.stack.Driver().LogFile())
}

// callsOf is what the driver answered to method between two readings.
func callsOf(before, after *framework.DriverCalls, method string) Calls {
	return Calls{
		Succeeded: after.Succeeded[method] - before.Succeeded[method],
		Failed:    after.Failed[method] - before.Failed[method],
	}
}

// sidecarCPU is the sidecar's CPU time so far, negative when it cannot be
// read.
func (r *runner) sidecarCPU() time.Duration {
	d, err := measure.ProcessCPU(r.stack.Sidecar().Pid())
	if err != nil {
		return -1
	}
	return d
}

// cpuSeconds is the CPU time between two readings, 0 (not measured) when
// either failed.
func cpuSeconds(before, after time.Duration) float64 {
	if before < 0 || after < 0 {
		return 0
	}
	return (after - before).Seconds()
}
