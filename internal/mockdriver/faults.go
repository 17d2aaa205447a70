package mockdriver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
)

// Faults makes CreateVolume, DeleteVolume, CreateSnapshot and DeleteSnapshot
// misbehave the way real storage does: slowly, with transient errors, or by
// crashing mid-call. Other calls never fail.
type Faults struct {
	// CreateDelay and DeleteDelay are waited before the operation runs. A
	// call whose context ends first is abandoned without side effects.
	// CreateVolume for a name that already has a volume answers at once.
	CreateDelay time.Duration
	DeleteDelay time.Duration
	// SnapshotDelay is waited before CreateSnapshot, as CreateDelay is
	// before CreateVolume; DeleteSnapshot has no delay.
	SnapshotDelay time.Duration
	// CreateOutlivesCaller makes CreateVolume finish creating the volume
	// even when its caller times out or goes away during CreateDelay, as
	// thick-provisioning backends do. Without it such a call is abandoned.
	CreateOutlivesCaller bool
	// FailureRate is the probability (0..1) that a CreateVolume,
	// DeleteVolume, CreateSnapshot or DeleteSnapshot call fails with
	// FailureCode instead of running. Snapshot calls fail like volume calls
	// because csi-snapshotter has to cope with the same flaky storage.
	FailureRate float64
	// FailureCode defaults to Unavailable.
	FailureCode codes.Code
	// ExitAfterCalls, when positive, makes the Nth call that changes
	// storage (CreateVolume, DeleteVolume, CreateSnapshot and
	// DeleteSnapshot, all counted together) run and persist its operation,
	// then call Exit instead of replying: the CO sees a driver that crashed
	// after doing the work. That call is never failed by FailureRate, so
	// the work is always done.
	ExitAfterCalls int
	// RateLimit throttles the backend's API, see APIRateLimit.
	RateLimit APIRateLimit
	// Rand decides injected failures; set it for deterministic tests.
	// Defaults to a randomly seeded source.
	Rand Rand
	// Exit is called for ExitAfterCalls. Defaults to flushing logs and
	// os.Exit(2). If it returns (as in tests), the driver acts dead: it
	// answers no further call.
	Exit func()
}

// Rand is the part of *rand.Rand (math/rand or math/rand/v2) that Faults
// needs.
type Rand interface {
	Float64() float64
}

// globalRand uses the goroutine-safe, randomly seeded top-level source.
type globalRand struct{}

func (globalRand) Float64() float64 { return rand.Float64() }

// errCrashed tells the interceptor to withhold the reply.
var errCrashed = errors.New("driver exited")

// errShuttingDown is the cancellation cause of calls cut short by Serve
// stopping.
var errShuttingDown = errors.New("driver is shutting down")

func (f Faults) withDefaults() (Faults, error) {
	if f.CreateDelay < 0 || f.DeleteDelay < 0 || f.SnapshotDelay < 0 {
		return f, errors.New("invalid fault delay: must not be negative")
	}
	if math.IsNaN(f.FailureRate) || f.FailureRate < 0 || f.FailureRate > 1 {
		return f, fmt.Errorf("invalid failure rate %v: must be within [0, 1]", f.FailureRate)
	}
	if f.FailureCode == codes.OK {
		f.FailureCode = codes.Unavailable
	}
	if f.FailureCode > codes.Unauthenticated {
		return f, fmt.Errorf("invalid failure code %d", uint32(f.FailureCode))
	}
	if f.ExitAfterCalls < 0 {
		return f, errors.New("invalid exit-after-calls: must not be negative")
	}
	limit, err := f.RateLimit.withDefaults()
	if err != nil {
		return f, err
	}
	f.RateLimit = limit
	if f.Rand == nil {
		f.Rand = globalRand{}
	}
	if f.Exit == nil {
		f.Exit = func() {
			klog.FlushAndExit(klog.ExitFlushTimeout, 2)
		}
	}
	return f, nil
}

// ParseCode turns a gRPC code name such as "Unavailable",
// "ResourceExhausted" or "RESOURCE_EXHAUSTED" into a code. OK is rejected
// because it is not a failure.
func ParseCode(name string) (codes.Code, error) {
	want := normaliseCodeName(name)
	var known []string
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		if normaliseCodeName(c.String()) == want {
			return c, nil
		}
		known = append(known, c.String())
	}
	return codes.OK, fmt.Errorf("unknown gRPC failure code %q, want one of %s", name, strings.Join(known, ", "))
}

func normaliseCodeName(s string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "_", ""))
}

// runFaulted wraps a CreateVolume, DeleteVolume, CreateSnapshot or
// DeleteSnapshot operation with the configured faults.
func runFaulted[T any](ctx context.Context, d *Driver, delay time.Duration, op func() (T, error)) (T, error) {
	var zero T
	if err := d.quota.admit(); err != nil {
		d.throttled.Add(1)
		return zero, err
	}
	n := d.mutatingCalls.Add(1)
	crash := d.faults.ExitAfterCalls > 0 && n == int64(d.faults.ExitAfterCalls)

	if delay > 0 {
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return zero, contextStatus(ctx)
		}
	}
	if !crash && d.injectFailure() {
		return zero, status.Errorf(d.faults.FailureCode, "injected failure (rate %v)", d.faults.FailureRate)
	}

	resp, err := op()
	if !crash {
		return resp, err
	}
	klog.FromContext(ctx).Info("Exiting without replying, as configured", "call", n, "operationErr", err)
	// Mark first: the exit func may stop the server, which must then know
	// to drop connections instead of draining them.
	d.crashed.Store(true)
	d.faults.Exit()
	return zero, errCrashed
}

func (d *Driver) injectFailure() bool {
	if d.faults.FailureRate <= 0 {
		return false
	}
	d.randMu.Lock()
	defer d.randMu.Unlock()
	return d.faults.Rand.Float64() < d.faults.FailureRate
}

// contextStatus converts the end of a call's context into a gRPC status,
// reporting a server shutdown as Unavailable so the CO retries.
func contextStatus(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), errShuttingDown) {
		return status.Error(codes.Unavailable, errShuttingDown.Error())
	}
	return status.FromContextError(ctx.Err()).Err()
}
