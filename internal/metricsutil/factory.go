// Package metricsutil builds the project's component-base metrics. Neither
// component-base nor Prometheus has a constructor that fixes a namespace and
// subsystem for component-base's metric types (promauto and
// WrapRegistererWithPrefix make or register Prometheus' own, without a
// stability level, outside the KubeRegistry the commands serve), so every
// package spelled out the same options for each metric.
package metricsutil

import (
	"k8s.io/component-base/metrics"
)

// Factory makes unregistered ALPHA metrics named
// Namespace_Subsystem_name; the caller registers them, those of a factory
// from Set.Factory through the set.
type Factory struct {
	Namespace, Subsystem string
	// set, if any, lists what the factory makes.
	set *Set
}

// Counter returns a counter.
func (f Factory) Counter(name, help string) *metrics.Counter {
	c := metrics.NewCounter(f.counterOpts(name, help))
	f.set.add(c)
	return c
}

// CounterVec returns a counter with the given label names.
func (f Factory) CounterVec(name, help string, labels ...string) *metrics.CounterVec {
	c := metrics.NewCounterVec(f.counterOpts(name, help), labels)
	f.set.add(c)
	return c
}

// Gauge returns a gauge.
func (f Factory) Gauge(name, help string) *metrics.Gauge {
	g := metrics.NewGauge(&metrics.GaugeOpts{
		Namespace: f.Namespace, Subsystem: f.Subsystem, Name: name, Help: help,
		StabilityLevel: metrics.ALPHA,
	})
	f.set.add(g)
	return g
}

func (f Factory) counterOpts(name, help string) *metrics.CounterOpts {
	return &metrics.CounterOpts{
		Namespace: f.Namespace, Subsystem: f.Subsystem, Name: name, Help: help,
		StabilityLevel: metrics.ALPHA,
	}
}

// Desc describes an unlabelled ALPHA metric computed at scrape time, named
// name in full.
func Desc(name, help string) *metrics.Desc {
	return metrics.NewDesc(name, help, nil, nil, metrics.ALPHA, "")
}
