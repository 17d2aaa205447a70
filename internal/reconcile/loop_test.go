package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// outcome is what one sync of a key returned.
type outcome struct {
	key    string
	result Result
	err    error
}

// harness runs a Loop whose sync answers from a script and reports every
// processed key on a channel.
type harness struct {
	loop      *Loop[string]
	processed chan outcome
	limiter   *countingLimiter
}

// countingLimiter never delays, and counts the retries and forgets per key.
type countingLimiter struct {
	mu      sync.Mutex
	retries map[string]int
	forgets map[string]int
}

func (c *countingLimiter) When(key string) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.retries[key]++
	return 0
}

func (c *countingLimiter) Forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgets[key]++
}

func (c *countingLimiter) NumRequeues(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.retries[key]
}

var _ workqueue.TypedRateLimiter[string] = &countingLimiter{}

func newHarness(t *testing.T, sync func(ctx context.Context, key string) (Result, error)) *harness {
	t.Helper()
	h := &harness{
		processed: make(chan outcome, 100),
		limiter:   &countingLimiter{retries: map[string]int{}, forgets: map[string]int{}},
	}
	loop, err := New(Options[string]{
		Name:        "test",
		Sync:        sync,
		RateLimiter: h.limiter,
		Processed:   func(key string, r Result, err error) { h.processed <- outcome{key, r, err} },
	})
	if err != nil {
		t.Fatal(err)
	}
	h.loop = loop
	return h
}

func (h *harness) next(t *testing.T) outcome {
	t.Helper()
	select {
	case o := <-h.processed:
		return o
	case <-time.After(10 * time.Second):
		t.Fatal("no key was processed")
		return outcome{}
	}
}

func TestOptionsNeedANameAndASync(t *testing.T) {
	if _, err := New(Options[string]{Sync: func(context.Context, string) (Result, error) { return Done, nil }}); err == nil {
		t.Error("a loop without a name was accepted")
	}
	if _, err := New(Options[string]{Name: "x"}); err == nil {
		t.Error("a loop without a sync was accepted")
	}
}

func TestSuccessfulSyncForgetsTheKey(t *testing.T) {
	h := newHarness(t, func(context.Context, string) (Result, error) { return Done, nil })
	h.loop.Add("a")
	h.loop.ProcessNext(context.Background())
	if o := h.next(t); o.key != "a" || o.err != nil {
		t.Errorf("got %+v", o)
	}
	if h.limiter.forgets["a"] != 1 || h.limiter.retries["a"] != 0 || h.loop.Len() != 0 {
		t.Errorf("forgets %d retries %d queued %d", h.limiter.forgets["a"], h.limiter.retries["a"], h.loop.Len())
	}
}

func TestFailedSyncIsRetriedRateLimited(t *testing.T) {
	calls := 0
	h := newHarness(t, func(context.Context, string) (Result, error) {
		calls++
		if calls == 1 {
			return Done, errors.New("boom")
		}
		return Done, nil
	})
	h.loop.Add("a")
	h.loop.ProcessNext(context.Background())
	h.loop.ProcessNext(context.Background()) // the retry, queued without delay by the limiter
	if first, second := h.next(t), h.next(t); first.err == nil || second.err != nil {
		t.Errorf("got %+v then %+v", first, second)
	}
	if h.limiter.retries["a"] != 1 || h.limiter.forgets["a"] != 1 {
		t.Errorf("retries %d forgets %d", h.limiter.retries["a"], h.limiter.forgets["a"])
	}
}

func TestConflictAndCacheBehindAreRetriedToo(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "things"}, "a", errors.New("changed"))
	for _, err := range []error{conflict, fmt.Errorf("wrapped: %w", conflict), fmt.Errorf("pvs: %w", ErrRetry)} {
		h := newHarness(t, func(context.Context, string) (Result, error) { return Done, err })
		h.loop.Add("a")
		h.loop.ProcessNext(context.Background())
		h.next(t)
		if h.limiter.retries["a"] != 1 || h.loop.Len() != 1 {
			t.Errorf("%v: retries %d queued %d", err, h.limiter.retries["a"], h.loop.Len())
		}
	}
}

func TestRequeueAfterComesBack(t *testing.T) {
	calls := 0
	h := newHarness(t, func(context.Context, string) (Result, error) {
		calls++
		if calls == 1 {
			return RequeueAfter(time.Millisecond), nil
		}
		return Done, nil
	})
	h.loop.Add("a")
	h.loop.ProcessNext(context.Background())
	if o := h.next(t); o.result.RequeueAfter != time.Millisecond {
		t.Fatalf("got %+v", o)
	}
	// Get blocks until the delayed key is back.
	h.loop.ProcessNext(context.Background())
	if o := h.next(t); o.key != "a" {
		t.Errorf("got %+v", o)
	}
}

func TestRunSyncsUntilTheContextEndsAndStopsTheQueue(t *testing.T) {
	h := newHarness(t, func(context.Context, string) (Result, error) { return Done, nil })
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		h.loop.Run(ctx, 2, func() bool { return true })
		close(stopped)
	}()
	h.loop.Add("a")
	h.loop.Add("b")
	seen := map[string]bool{h.next(t).key: true, h.next(t).key: true}
	if !seen["a"] || !seen["b"] {
		t.Errorf("processed %v", seen)
	}
	cancel()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the context ended")
	}
	if h.loop.ProcessNext(context.Background()) {
		t.Error("the queue still hands out keys after Run returned")
	}
}

func TestRunWithoutSyncedCachesRunsNoSync(t *testing.T) {
	h := newHarness(t, func(context.Context, string) (Result, error) { return Done, nil })
	h.loop.Add("a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.loop.Run(ctx, 1, func() bool { return false })
	select {
	case o := <-h.processed:
		t.Errorf("synced %+v before the caches did", o)
	default:
	}
}

func TestSyncGetsALoggerNamingTheKey(t *testing.T) {
	var lines []string
	var mu sync.Mutex
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, prefix+" "+args)
	}, funcr.Options{})
	loop, err := New(Options[string]{
		Name: "pv-protection",
		Sync: func(ctx context.Context, key string) (Result, error) {
			klog.FromContext(ctx).Info("syncing")
			return Done, nil
		},
		LogValues: func(key string) []any { return []any{"PV", key} },
	})
	if err != nil {
		t.Fatal(err)
	}
	loop.Add("pv-1")
	loop.ProcessNext(klog.NewContext(context.Background(), logger))
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 1 || !strings.Contains(lines[0], `"PV"="pv-1"`) {
		t.Errorf("log lines %q", lines)
	}
}
