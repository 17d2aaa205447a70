// Package reconciletest helps tests of controllers built on package
// reconcile.
package reconciletest

import (
	"slices"
	"sync"
	"testing"

	"k8s.io/client-go/util/workqueue"
)

// QueueNames records the name of every workqueue created in this process
// once it is installed. The name a queue gives client-go's metrics
// provider is the name label of its workqueue_* series.
type QueueNames struct {
	mu    sync.Mutex
	names []string
}

var (
	installOnce sync.Once
	installed   *QueueNames
)

// probeQueue is created by RecordQueueNames to check the recorder is the
// provider client-go uses.
const probeQueue = "reconciletest-probe"

// RecordQueueNames installs the recorder as client-go's workqueue metrics
// provider, once per process, and returns it. client-go keeps the first
// provider installed, so it fails t if another came first (a test binary
// importing component-base's prometheus/workqueue package).
func RecordQueueNames(t testing.TB) *QueueNames {
	t.Helper()
	installOnce.Do(func() {
		installed = &QueueNames{}
		workqueue.SetProvider(installed)
	})
	workqueue.NewTypedWithConfig[int](workqueue.TypedQueueConfig[int]{Name: probeQueue}).ShutDown()
	if !installed.Created(probeQueue) {
		t.Fatal("another workqueue metrics provider was installed first: queue names cannot be recorded")
	}
	return installed
}

// Created reports whether a queue named name was created.
func (q *QueueNames) Created(name string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Contains(q.names, name)
}

// NewDepthMetric is called once per queue created.
func (q *QueueNames) NewDepthMetric(name string) workqueue.GaugeMetric {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.names = append(q.names, name)
	return noop{}
}

func (q *QueueNames) NewAddsMetric(string) workqueue.CounterMetric           { return noop{} }
func (q *QueueNames) NewLatencyMetric(string) workqueue.HistogramMetric      { return noop{} }
func (q *QueueNames) NewWorkDurationMetric(string) workqueue.HistogramMetric { return noop{} }
func (q *QueueNames) NewUnfinishedWorkSecondsMetric(string) workqueue.SettableGaugeMetric {
	return noop{}
}
func (q *QueueNames) NewLongestRunningProcessorSecondsMetric(string) workqueue.SettableGaugeMetric {
	return noop{}
}
func (q *QueueNames) NewRetriesMetric(string) workqueue.CounterMetric { return noop{} }

type noop struct{}

func (noop) Inc()            {}
func (noop) Dec()            {}
func (noop) Set(float64)     {}
func (noop) Observe(float64) {}
