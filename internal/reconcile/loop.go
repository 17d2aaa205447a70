// Package reconcile is the one shape every controller of this project has:
// informer handlers put typed keys on one rate-limited workqueue, and
// workers call the controller's sync(ctx, key) for each. A sync reads the
// caches, writes what differs and returns Done, RequeueAfter or an error; it
// must be idempotent and safe to run again after a crash at any line.
//
// The loop owns what every controller used to repeat: the default rate
// limiter, quiet requeues of 409 Conflicts, one shutdown path that stops the
// queue once and waits for the workers, a named contextual logger per key,
// and a hook that tells tests which key was processed.
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Result tells the loop what to do with a key after a successful sync.
type Result struct {
	// RequeueAfter, when positive, syncs the key again after this long,
	// for a decision that depends on time (a grace period, say).
	RequeueAfter time.Duration
}

// Done is the result of a sync that needs nothing more until an event.
var Done = Result{}

// RequeueAfter asks for the key to be synced again after d.
func RequeueAfter(d time.Duration) Result { return Result{RequeueAfter: d} }

// ErrRetry marks an error the loop retries quietly, like a Conflict: the
// cache lags behind a write and the next sync decides on a fresher copy.
// Wrap it: fmt.Errorf("...: %w", reconcile.ErrRetry).
var ErrRetry = errors.New("the cache is behind; retrying")

// Default retry pacing of a failed sync: exponential per key.
const (
	DefaultRetryBase = time.Second
	DefaultRetryMax  = 5 * time.Minute
)

// DefaultRateLimiter is the retry pacing of every controller unless its
// options say otherwise.
func DefaultRateLimiter[K comparable]() workqueue.TypedRateLimiter[K] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[K](DefaultRetryBase, DefaultRetryMax)
}

// Options configure a Loop.
type Options[K comparable] struct {
	// Name names the logger and the log lines of start and stop, e.g.
	// "pv-protection", and the queue unless QueueName is set.
	Name string
	// QueueName, if set, names the queue, and so its workqueue_* metrics
	// series: upstream's name for a controller doing upstream's work, so
	// that dashboards and alerts written for upstream keep working.
	QueueName string
	// Sync brings the object of key to its desired state.
	Sync func(ctx context.Context, key K) (Result, error)
	// LogValues are the key/value pairs that name key in the logger given
	// to Sync, e.g. "PV", klog.KRef("", name).
	LogValues func(key K) []any
	// RateLimiter paces retries; nil is DefaultRateLimiter.
	RateLimiter workqueue.TypedRateLimiter[K]
	// Processed, if set, is called after each sync of a key with its
	// outcome: tests wait on it instead of on time.
	Processed func(key K, result Result, err error)
}

// Loop is the queue and workers of one controller.
type Loop[K comparable] struct {
	name      string
	sync      func(ctx context.Context, key K) (Result, error)
	logValues func(key K) []any
	processed func(key K, result Result, err error)
	queue     workqueue.TypedRateLimitingInterface[K]
}

// New checks opts and makes the queue. Keys may be added before Run.
func New[K comparable](opts Options[K]) (*Loop[K], error) {
	switch {
	case opts.Name == "":
		return nil, errors.New("reconcile loop needs a name")
	case opts.Sync == nil:
		return nil, fmt.Errorf("reconcile loop %s needs a sync function", opts.Name)
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = DefaultRateLimiter[K]()
	}
	logValues := opts.LogValues
	if logValues == nil {
		logValues = func(key K) []any { return []any{"key", key} }
	}
	queueName := opts.QueueName
	if queueName == "" {
		queueName = opts.Name
	}
	return &Loop[K]{
		name:      opts.Name,
		sync:      opts.Sync,
		logValues: logValues,
		processed: opts.Processed,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
			workqueue.TypedRateLimitingQueueConfig[K]{Name: queueName}),
	}, nil
}

// Add queues key now.
func (l *Loop[K]) Add(key K) { l.queue.Add(key) }

// AddAfter queues key after d.
func (l *Loop[K]) AddAfter(key K, d time.Duration) { l.queue.AddAfter(key, d) }

// Len is the number of keys waiting.
func (l *Loop[K]) Len() int { return l.queue.Len() }

// Run waits for the caches, then runs workers until ctx ends. On return the
// queue is shut down and every worker has finished its key.
func (l *Loop[K]) Run(ctx context.Context, workers int, synced ...cache.InformerSynced) {
	defer utilruntime.HandleCrash()
	logger := klog.FromContext(ctx).WithName(l.name)
	ctx = klog.NewContext(ctx, logger)
	workers = max(workers, 1)
	var wg sync.WaitGroup
	defer func() {
		l.queue.ShutDown()
		wg.Wait()
		logger.Info("Stopped controller")
	}()
	logger.Info("Starting controller", "workers", workers)
	if !cache.WaitForNamedCacheSyncWithContext(ctx, synced...) {
		return
	}
	for range workers {
		wg.Go(func() { wait.UntilWithContext(ctx, l.work, time.Second) })
	}
	// The deferred ShutDown stops the workers once ctx ends. Not
	// ShutDownWithDrain, which would wait for keys still queued: stopping
	// is safe at any line, so only the keys in hand are finished.
	<-ctx.Done()
}

func (l *Loop[K]) work(ctx context.Context) {
	for l.ProcessNext(ctx) {
	}
}

// ProcessNext syncs one key off the queue and reports false once the queue
// is shut down. Run calls it; tests may call it to step the controller.
func (l *Loop[K]) ProcessNext(ctx context.Context) bool {
	key, quit := l.queue.Get()
	if quit {
		return false
	}
	defer l.queue.Done(key)
	logger := klog.LoggerWithValues(klog.FromContext(ctx), l.logValues(key)...)
	result, err := l.sync(klog.NewContext(ctx, logger), key)
	switch {
	case err == nil:
		l.queue.Forget(key)
		if result.RequeueAfter > 0 {
			l.queue.AddAfter(key, result.RequeueAfter)
		}
	case apierrors.IsConflict(err) || errors.Is(err, ErrRetry):
		// The object changed under a write pinned to its version, or the
		// cache lags: the informer brings the newer copy and the retry
		// decides on it. Routine, not an error.
		logger.V(4).Info("Object changed during sync, will retry", "err", err)
		l.queue.AddRateLimited(key)
	default:
		logger.Error(err, "Sync failed, will retry")
		l.queue.AddRateLimited(key)
	}
	if l.processed != nil {
		l.processed(key, result, err)
	}
	return true
}

// ShutDown stops the queue; Run also does it when ctx ends. Tests that
// step the loop with ProcessNext call it when done.
func (l *Loop[K]) ShutDown() { l.queue.ShutDown() }
