package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// fakeElection stands in for the csi-lib-utils elector.
type fakeElection func() error

func (f fakeElection) Run() error { return f() }

func newTestElector(work func(context.Context)) *elector {
	return &elector{work: work, done: make(chan struct{})}
}

func runAsync(e *elector, ctx context.Context) chan error {
	result := make(chan error, 1)
	go func() { result <- e.run(ctx) }()
	return result
}

func waitResult(t *testing.T, result chan error) error {
	t.Helper()
	select {
	case err := <-result:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("elector did not return")
		return nil
	}
}

// winsAtOnce is an election that makes e lead with leaderCtx and, like
// csi-lib-utils' without a release, never returns.
func winsAtOnce(e *elector, leaderCtx context.Context) fakeElection {
	return func() error {
		go e.lead(leaderCtx)
		select {}
	}
}

// runThenShutDown runs e and shuts it down once started is closed, or at
// once if it is nil; run must return nil.
func runThenShutDown(t *testing.T, e *elector, started <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	result := runAsync(e, ctx)
	if started != nil {
		<-started
	}
	cancel()
	if err := waitResult(t, result); err != nil {
		t.Fatal(err)
	}
}

func TestElectorShutdownWhileNotLeading(t *testing.T) {
	var worked atomic.Bool
	e := newTestElector(func(context.Context) { worked.Store(true) })
	e.le = fakeElection(func() error { select {} })

	runThenShutDown(t, e, nil)
	// Leadership won after shutdown must not start the work.
	e.lead(context.Background())
	if worked.Load() {
		t.Error("work started after shutdown")
	}
}

func TestElectorShutdownWaitsForWork(t *testing.T) {
	started := make(chan struct{})
	var finished atomic.Bool
	e := newTestElector(func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // cleanup that shutdown must wait for
		finished.Store(true)
	})
	e.le = winsAtOnce(e, context.Background())

	runThenShutDown(t, e, started)
	if !finished.Load() {
		t.Error("run returned before the work finished")
	}
}

func TestElectorLostLeadershipStopsWork(t *testing.T) {
	stopped := make(chan struct{})
	e := newTestElector(func(ctx context.Context) {
		<-ctx.Done()
		close(stopped)
	})
	leaderCtx, lose := context.WithCancel(context.Background())
	e.le = winsAtOnce(e, leaderCtx)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runAsync(e, ctx)
	lose()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("work kept running after leadership was lost")
	}
}

func TestElectorSetupError(t *testing.T) {
	e := newTestElector(func(context.Context) {})
	e.le = fakeElection(func() error { return errors.New("no lock") })
	err := waitResult(t, runAsync(e, context.Background()))
	if err == nil || err.Error() != "leader election: no lock" {
		t.Errorf("got %v", err)
	}
}

func TestElectorReleasesLeaseOnlyAfterWorkStopped(t *testing.T) {
	started := make(chan struct{})
	var workStopped atomic.Bool
	e := newTestElector(func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		workStopped.Store(true)
	})
	electionCtx, release := context.WithCancel(context.Background())
	e.releaseLease = release
	var stoppedWhenReleased atomic.Bool
	e.le = fakeElection(func() error {
		go e.lead(context.Background())
		// csi-lib-utils gives the Lease up when its context ends.
		<-electionCtx.Done()
		stoppedWhenReleased.Store(workStopped.Load())
		return nil
	})

	runThenShutDown(t, e, started)
	if !stoppedWhenReleased.Load() {
		t.Error("the Lease was released while the work still ran")
	}
}

func TestElectorWithoutReleaseKeepsElectionRunning(t *testing.T) {
	e := newTestElector(func(ctx context.Context) { <-ctx.Done() })
	e.le = winsAtOnce(e, context.Background())
	runThenShutDown(t, e, nil)
}
