package soak

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// Result is what a run did and left behind.
type Result struct {
	Options Options   `json:"options"`
	Started time.Time `json:"started"`
	// Churned is how long claims churned and faults were injected, and
	// Settled how long the clean-up after it took (or was given).
	Churned time.Duration `json:"churned"`
	Settled time.Duration `json:"settled"`
	Claims  []Claim       `json:"claims"`
	Faults  []Fault       `json:"faults"`
	Exits   []Exit        `json:"exits"`
	Samples []Sample      `json:"samples"`
	Account Account       `json:"account"`
	Logs    RunLogs       `json:"logs"`
}

// Run churns claims against two leader-electing sidecars while faults are
// injected, then lets everything be cleaned up and accounts for it.
func Run(ctx context.Context, o Options) (*Result, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	logger := klog.FromContext(ctx)
	work := filepath.Join(o.OutDir, "work")
	// A work dir of an earlier run would hand its driver state to this one.
	if err := os.RemoveAll(work); err != nil {
		return nil, err
	}
	s, err := startStack(ctx, o)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := s.Stop(); err != nil {
			logger.Error(err, "Stop the stack")
		}
	}()
	if err := createStorageClass(ctx, s.Client(), s.DriverName()); err != nil {
		return nil, err
	}
	reps, err := startReplicas(ctx, s)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, r := range reps {
			_ = r.proxy.Close()
		}
	}()

	res := &Result{Options: o, Started: time.Now()}
	superviseCtx, stopSupervising := context.WithCancel(ctx)
	defer stopSupervising()
	sup := newSupervisor(res.Started)
	for _, r := range reps {
		sup.watch(superviseCtx, r.proc)
	}
	sup.watch(superviseCtx, s.Cluster().ControllerManager())

	if _, err := createClaim(ctx, s.Client(), goldenClaim, false); err != nil {
		return nil, err
	}
	if !waitBound(ctx, s.Client(), goldenClaim, boundWait) {
		return nil, fmt.Errorf("the clones' source %s was not bound within %s", goldenClaim, boundWait)
	}
	led := &ledger{start: res.Started}
	profiles := filepath.Join(o.OutDir, profilesDir)
	if err := os.RemoveAll(profiles); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(profiles, 0o755); err != nil {
		return nil, err
	}
	smp := &sampler{stack: s, replicas: reps, ledger: led, stuckAfter: o.StuckAfter, profileDir: profiles}
	sampleCtx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	var background sync.WaitGroup
	background.Go(func() { res.Samples = smp.run(sampleCtx, o.SampleInterval) })

	churnCtx, stopChurn := context.WithTimeout(ctx, o.Duration)
	defer stopChurn()
	in := &injector{
		stack: s, replicas: reps, etcd: newEtcdClient(s.Cluster().EtcdURL()),
		// A stream of its own, apart from the churn's.
		rng:      rand.New(rand.NewPCG(o.Seed, 1<<32)),
		interval: o.FaultInterval, start: res.Started,
	}
	var faults sync.WaitGroup
	faults.Go(func() { res.Faults = in.run(churnCtx) })
	logger.Info("Churning", "duration", o.Duration, "workers", o.Workers, "faultInterval", o.FaultInterval, "seed", o.Seed)
	(&churner{client: s.Client(), ledger: led, seed: o.Seed, delay: o.CreateDelay}).run(churnCtx, o.Workers)
	faults.Wait()
	res.Churned = time.Since(res.Started)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	logger.Info("Churn over; waiting for every claim, PV and volume to be gone", "timeout", o.SettleTimeout)
	settleStart := time.Now()
	if err := deleteClaim(ctx, s.Client(), goldenClaim); err != nil {
		return nil, err
	}
	settleErr := settle(ctx, s, o.SettleTimeout)
	res.Settled = time.Since(settleStart)
	if settleErr != nil && !errors.Is(settleErr, errNotSettled) {
		return nil, settleErr
	}
	stopSampling()
	background.Wait()
	stopSupervising()
	res.Exits = sup.stop()
	res.Claims = led.claims()
	if res.Logs, err = runLogs(o.OutDir, s, reps); err != nil {
		return res, err
	}
	res.Account, err = account(ctx, o, s, res, settleErr)
	return res, err
}
