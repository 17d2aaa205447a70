package pvcprotection

import (
	"context"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// podFreshness tells sync whether it may trust the pod index for a claim of
// namespace that this process saw being deleted at seen. doc.go explains why
// the answer is race-free.
type podFreshness interface {
	Fresh(ctx context.Context, namespace string, seen moment) (freshness, error)
}

// freshness is the answer of podFreshness.
type freshness struct {
	// ready: the index holds every pod written before the claim was seen
	// deleting; decide from it.
	ready bool
	// live, when the index is not ready: a live list of the namespace's
	// pods made after the claim was seen deleting; decide from it. Neither
	// ready nor live: the index will be ready soon, ask again shortly.
	live *livePods
}

// livePods is a live list of a namespace's pods, by the claims they name.
type livePods struct {
	resourceVersion string
	byClaim         map[string][]*v1.Pod
}

// moment orders what this process saw. A check is valid for a claim only if
// it started after the claim was seen deleting; seq decides that even when
// the (injected, maybe fake or coarse) clock shows equal times.
type moment struct {
	at  time.Time
	seq uint64
}

func (m moment) before(o moment) bool { return m.seq < o.seq }

// stamper hands out moments.
type stamper struct {
	clock clock.PassiveClock
	seq   atomic.Uint64
}

func (s *stamper) now() moment {
	// Take the sequence number first: a moment must never look earlier than
	// anything that happened before it was handed out.
	seq := s.seq.Add(1)
	return moment{at: s.clock.Now(), seq: seq}
}

// versionSource is how far the pod index has applied the pod stream: the
// resourceVersion of the last pod event or bookmark written to it. The
// informer's indexer implements it (cache.Store.LastStoreSyncResourceVersion;
// the AtomicFIFO client-go feature, on by default, makes it track writes).
// The informer's own LastSyncResourceVersion is not enough: the reflector
// moves it when it queues an event, before the indexer applies it.
type versionSource interface {
	LastStoreSyncResourceVersion() string
}

// Tunables of the freshness check; variables for tests.
var (
	// resultTTL is how long a namespace's last check result is kept for
	// claims seen deleting before it started.
	resultTTL = 2 * time.Minute
	// watchTimeoutSeconds is the server-side timeout of a replay watch; the
	// API server sends a bookmark about a second after the start of a watch
	// with a 3s timeout. Not 2s: the watch cache schedules the bookmark 2s
	// before the timeout, which is then already past when the watch starts,
	// so no bookmark comes at all (measured: every check timed out).
	watchTimeoutSeconds int64 = 3
	// watchAttempts bounds the replay watches of one check.
	watchAttempts = 3
	// smallNamespacePods is the largest namespace (by the pod index) that a
	// check lists live, at most this many pods per request, as
	// kube-controller-manager lists every namespace: no wait for a
	// bookmark, and no more bytes than KCM reads. A larger namespace is
	// never listed while the watch can replay it.
	smallNamespacePods = 100
)

// podCounter tells how many pods the index holds in a namespace; false
// when it cannot tell.
type podCounter func(namespace string) (int, bool)

// namespacePodCount counts a namespace's pods in an indexer with the
// informers' namespace index.
func namespacePodCount(indexer cache.Indexer) podCounter {
	return func(namespace string) (int, bool) {
		pods, err := indexer.ByIndex(cache.NamespaceIndex, namespace)
		if err != nil {
			return 0, false
		}
		return len(pods), true
	}
}

// checker is the real podFreshness. Checks of one namespace never overlap:
// a caller whose claim was seen before the running check started shares its
// result, a later one waits for it and starts the next, so any number of
// claims deleted together in one namespace costs one or two checks.
type checker struct {
	client   kubernetes.Interface
	versions versionSource
	// podsIn, if set, lets a check list a small namespace at once.
	podsIn  podCounter
	stamps  *stamper
	metrics *Metrics

	mu         sync.Mutex
	namespaces map[string]*namespaceChecks
	lastPrune  time.Time
}

type namespaceChecks struct {
	running *check
	// last is the newest reusable result.
	last *checkResult
}

// check is one run of the freshness check of a namespace.
type check struct {
	started moment
	done    chan struct{}
	result  *checkResult
	err     error
}

// checkResult is what a check found. Only the first non-zero field counts.
type checkResult struct {
	started moment
	// live: the check listed the namespace's pods.
	live *livePods
	// waitFor: the index is ready once it has applied this resourceVersion;
	// "" means at once.
	waitFor string
}

func newChecker(client kubernetes.Interface, versions versionSource, podsIn podCounter, stamps *stamper, m *Metrics) *checker {
	return &checker{
		client:     client,
		versions:   versions,
		podsIn:     podsIn,
		stamps:     stamps,
		metrics:    m,
		namespaces: map[string]*namespaceChecks{},
	}
}

// Fresh implements podFreshness.
func (f *checker) Fresh(ctx context.Context, namespace string, seen moment) (freshness, error) {
	for {
		f.mu.Lock()
		ns := f.namespaces[namespace]
		if ns == nil {
			ns = &namespaceChecks{}
			f.namespaces[namespace] = ns
		}
		if ns.last != nil && seen.before(ns.last.started) {
			res := ns.last
			f.mu.Unlock()
			return f.evaluate(res), nil
		}
		if running := ns.running; running != nil {
			f.mu.Unlock()
			select {
			case <-running.done:
			case <-ctx.Done():
				return freshness{}, ctx.Err()
			}
			if seen.before(running.started) {
				if running.err != nil {
					return freshness{}, running.err
				}
				return f.evaluate(running.result), nil
			}
			// It started before the claim was seen deleting: it proves
			// nothing for it. Start (or join) the next one.
			continue
		}
		run := &check{started: f.stamps.now(), done: make(chan struct{})}
		ns.running = run
		f.mu.Unlock()

		run.result, run.err = f.run(ctx, namespace, run.started)

		f.mu.Lock()
		ns.running = nil
		// A live list without version tracking would go stale as pods
		// change: only the callers that waited for it may use it.
		if run.err == nil && (run.result.live == nil || f.tracksVersions()) {
			ns.last = run.result
		}
		f.pruneLocked()
		f.mu.Unlock()
		close(run.done)
		if run.err != nil {
			return freshness{}, run.err
		}
		return f.evaluate(run.result), nil
	}
}

// evaluate turns a result into an answer for a claim it covers.
func (f *checker) evaluate(res *checkResult) freshness {
	if res.live != nil {
		// Once the index has applied everything the list saw, the index is
		// the fresher of the two: pods deleted since are gone from it.
		if atLeast(f.versions.LastStoreSyncResourceVersion(), res.live.resourceVersion) {
			return freshness{ready: true}
		}
		return freshness{live: res.live}
	}
	if res.waitFor == "" || atLeast(f.versions.LastStoreSyncResourceVersion(), res.waitFor) {
		return freshness{ready: true}
	}
	return freshness{}
}

func (f *checker) tracksVersions() bool {
	return checkResourceVersion(f.versions.LastStoreSyncResourceVersion()) == nil
}

// pruneLocked forgets old results, at most once per resultTTL.
func (f *checker) pruneLocked() {
	now := f.stamps.clock.Now()
	if now.Sub(f.lastPrune) < resultTTL {
		return
	}
	f.lastPrune = now
	maps.DeleteFunc(f.namespaces, func(_ string, ns *namespaceChecks) bool {
		return ns.running == nil && (ns.last == nil || now.Sub(ns.last.started.at) >= resultTTL)
	})
}

// run performs one check; see docs/volume-protection.md.
func (f *checker) run(ctx context.Context, namespace string, started moment) (*checkResult, error) {
	logger := klog.FromContext(ctx)
	res := &checkResult{started: started}
	have := f.versions.LastStoreSyncResourceVersion()
	if checkResourceVersion(have) != nil {
		// Without the index's version nothing can be proven from it.
		logger.V(4).Info("Pod cache does not report its resourceVersion, listing pods", "namespace", namespace, "cacheVersion", have)
		return f.listInstead(ctx, namespace, res)
	}
	live, target, err := f.probe(ctx, namespace)
	if err != nil {
		return nil, err
	}
	if live != nil {
		f.metrics.FreshnessChecks.WithLabelValues(resultSmallList).Inc()
		logger.V(5).Info("Listed the pods of a small namespace", "namespace", namespace, "resourceVersion", live.resourceVersion)
		res.live = live
		return res, nil
	}
	if atLeast(have, target) {
		f.metrics.FreshnessChecks.WithLabelValues(resultCache).Inc()
		logger.V(5).Info("Pod cache is fresh", "namespace", namespace, "cacheVersion", have, "target", target)
		return res, nil
	}
	last, err := replayPodEvents(ctx, f.client, namespace, have, target)
	if isExpired(err) {
		logger.V(3).Info("Pod cache version is too old to watch from, listing pods", "namespace", namespace, "cacheVersion", have)
		return f.listInstead(ctx, namespace, res)
	}
	if err != nil {
		return nil, err
	}
	f.metrics.FreshnessChecks.WithLabelValues(resultWatch).Inc()
	logger.V(5).Info("Replayed pod events", "namespace", namespace, "cacheVersion", have, "target", target, "waitFor", last)
	res.waitFor = last
	return res, nil
}

// probe returns either the pods of a small namespace, listed live, or the
// consistent resourceVersion the index must reach. A namespace that grew
// past the bound since the index counted it goes on to the watch, from the
// bounded list's resourceVersion.
func (f *checker) probe(ctx context.Context, namespace string) (*livePods, string, error) {
	if n, ok := f.podCount(namespace); ok && n <= smallNamespacePods {
		return listSmallNamespace(ctx, f.client, namespace, int64(smallNamespacePods))
	}
	target, err := consistentPodVersion(ctx, f.client, namespace)
	return nil, target, err
}

// podCount is the index's pod count of namespace, if known.
func (f *checker) podCount(namespace string) (int, bool) {
	if f.podsIn == nil {
		return 0, false
	}
	return f.podsIn(namespace)
}

func (f *checker) listInstead(ctx context.Context, namespace string, res *checkResult) (*checkResult, error) {
	live, err := listPods(ctx, f.client, namespace)
	if err != nil {
		return nil, err
	}
	f.metrics.LivePodLists.Inc()
	f.metrics.FreshnessChecks.WithLabelValues(resultList).Inc()
	res.live = live
	return res, nil
}
