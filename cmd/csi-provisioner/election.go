package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/kubernetes-csi/csi-lib-utils/leaderelection"
	"k8s.io/client-go/kubernetes"
)

type electorOptions struct {
	Client kubernetes.Interface
	// LockName is the driver name; the Lease is named after its sanitized
	// form, as upstream does, so upstream replicas and ours compete for the
	// same Lease.
	LockName      string
	Namespace     string // "" for the pod's namespace
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// Labels go on the Lease while this instance holds it
	// (--leader-election-labels).
	Labels map[string]string
	// ReleaseOnExit gives the Lease up on shutdown, once Work has stopped
	// (gate ReleaseLeaderElectionOnExit).
	ReleaseOnExit bool
	// Mux, if set, gets the leader election health check.
	Mux *http.ServeMux
	// Work runs while this instance leads, until its context ends.
	Work func(context.Context)
}

// elector runs Work only while this instance holds the Lease.
//
// Losing the Lease exits the process (csi-lib-utils does that, so that two
// leaders never overlap). A shutdown signal is different: Work is stopped
// and waited for. By default run then returns so the process exits cleanly,
// and the Lease is left to expire. With ReleaseOnExit the election's own
// context is cancelled next, so that csi-lib-utils gives the Lease up; it
// then exits the process with status 1 itself, as upstream v6 does.
type elector struct {
	le   leaderElection
	work func(context.Context)

	// releaseLease, set with ReleaseOnExit, ends the election, which gives
	// the Lease up.
	releaseLease context.CancelFunc

	// stop is the shutdown context, set by run before the election starts.
	stop context.Context

	mu       sync.Mutex
	stopping bool
	running  bool
	done     chan struct{}
}

// leaderElection is the part of the csi-lib-utils elector used here.
type leaderElection interface {
	Run() error
}

// newElector sets up the election. The health check is registered here so
// that it exists before the diagnostics server starts.
func newElector(opts electorOptions) *elector {
	e := &elector{work: opts.Work, done: make(chan struct{})}
	le := leaderelection.NewLeaderElection(opts.Client, opts.LockName, e.lead)
	if opts.Mux != nil {
		le.PrepareHealthCheck(opts.Mux, leaderelection.DefaultHealthCheckTimeout)
	}
	if opts.Namespace != "" {
		le.WithNamespace(opts.Namespace)
	}
	// No WithIdentity: as upstream, csi-lib-utils holds the Lease as the
	// host name, the pod's name, so a pod restarted under its name takes
	// its own Lease back at once instead of waiting for it to expire.
	le.WithLeaseDuration(opts.LeaseDuration)
	le.WithRenewDeadline(opts.RenewDeadline)
	le.WithRetryPeriod(opts.RetryPeriod)
	if len(opts.Labels) > 0 {
		le.WithLabels(opts.Labels)
	}
	// Without ReleaseOnExit, not WithContext: cancelling the election's
	// context makes csi-lib-utils exit with status 1, which a clean shutdown
	// must not do.
	if opts.ReleaseOnExit {
		electionCtx, release := context.WithCancel(context.Background())
		le.WithContext(electionCtx)
		le.WithReleaseOnCancel(true)
		e.releaseLease = release
	}
	e.le = le
	return e
}

// lead is called by the election once leadership is won.
func (e *elector) lead(leaderCtx context.Context) {
	e.mu.Lock()
	if e.stopping {
		e.mu.Unlock()
		return
	}
	e.running = true
	e.mu.Unlock()
	defer close(e.done)

	// Work stops when leadership ends or shutdown starts, whichever is first.
	ctx, cancel := context.WithCancel(leaderCtx)
	defer cancel()
	defer context.AfterFunc(e.stop, cancel)()
	e.work(ctx)
}

// run campaigns until ctx ends, then waits for Work to stop.
func (e *elector) run(ctx context.Context) error {
	e.stop = ctx
	ended := make(chan error, 1)
	go func() {
		err := e.le.Run()
		if err != nil {
			err = fmt.Errorf("leader election: %w", err)
		}
		ended <- err
	}()

	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
	}

	e.mu.Lock()
	e.stopping = true
	running := e.running
	e.mu.Unlock()
	if running {
		<-e.done
	}
	if e.releaseLease == nil {
		return nil
	}
	// Work has stopped: give the Lease up. csi-lib-utils exits the process
	// once it has, so this returns only if the election ends otherwise.
	e.releaseLease()
	return <-ended
}
