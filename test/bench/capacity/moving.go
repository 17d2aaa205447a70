package capacity

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
)

// GoalHiddenPolls is the longest, in poll intervals, an object may hide a
// change across its class's largest request: one interval until the poll
// that sees the change, one for the poll's work.
const GoalHiddenPolls = 2

// movingPhase restarts the driver with its capacity moving, then runs a
// sidecar at the default budget for MovingPolls intervals, sampling its
// queue and every published object against the driver's answer.
func (r *runner) movingPhase(ctx context.Context) error {
	driver := r.stack.DriverOptions()
	driver.CapacityMoving = r.opts.moving()
	// No sidecar runs: one would exit on the lost connection.
	if err := r.stack.ReplaceDriver(ctx, driver); err != nil {
		return fmt.Errorf("restart the driver with moving capacity: %w", err)
	}
	sc, err := r.startSidecar(ctx)
	if err != nil {
		return err
	}
	defer r.stopSidecar(sc, "moving")

	model := newDriverModel(r.opts.Classes, r.opts.moving())
	wanted := wantedKeys(r.opts.Classes, r.nodes)
	crossings := newHiddenCrossings(GoalHiddenPolls * r.opts.PollInterval)
	res := &r.res.Moving
	for _, k := range wanted {
		if model.moving.Moves(k.Segment) {
			res.MovingObjects++
		}
	}
	end := sc.started.Add(time.Duration(r.opts.MovingPolls) * r.opts.PollInterval)
	r.windows.moving.From, r.windows.moving.To = sc.started, end
	depths := sampleDepth(ctx, sc, end, r.opts.SampleEvery, 2*r.opts.PollInterval)
	defer func() {
		samples, failed := depths.result()
		res.Depths = samples
		res.Depth = depthSummary(res.Depths, failed, r.opts.PollInterval, end.Sub(sc.started))
	}()
	var all []float64
	tick := time.NewTicker(r.opts.SampleEvery)
	defer tick.Stop()
	lastProgress := sc.started
	for {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
		}
		now := time.Now()
		if now.After(end) {
			break
		}
		s, errs := model.score(now, wanted, r.watch.snapshot(), crossings)
		s.At = now.Sub(sc.started)
		res.Samples = append(res.Samples, s)
		all = append(all, errs...)
		if now.Sub(lastProgress) >= r.opts.PollInterval {
			lastProgress = now
			r.opts.Progressf("  moving, %s: queue %d, p99 error %s, %d stale, %d hide a crossing", s.At.Round(time.Second), depths.latest(), bench.Pct(s.ErrorP99), s.Stale, s.Hidden)
		}
		if err := r.stack.CheckAlive(); err != nil {
			return err
		}
	}
	crossings.finish(end)
	res.Duration = end.Sub(sc.started)
	summarizeErrors(res, all)
	res.HiddenLongest, res.HiddenStreaks, res.HiddenOverLimit = crossings.Longest, crossings.Streaks, crossings.OverLimit
	if crossings.Longest > 0 {
		res.HiddenObject = crossings.LongestObject.String()
	}
	return nil
}

// summarizeErrors is the distribution of every relative error observed.
func summarizeErrors(res *Moving, all []float64) {
	slices.Sort(all)
	res.Observations = len(all)
	res.ErrorP50, res.ErrorP99 = quantile(all, 0.5), quantile(all, 0.99)
	if len(all) > 0 {
		res.ErrorMax = all[len(all)-1]
	}
}
