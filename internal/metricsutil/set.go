package metricsutil

import (
	"k8s.io/component-base/metrics"
)

// Namespace prefixes every metric of the project's own.
const Namespace = "csi_provisioner"

// Set lists the metrics its factories make, so that a package's Metrics
// embed it instead of keeping a list of their fields by hand for
// registration, which a new metric could miss.
type Set struct {
	registerables []metrics.Registerable
	collectors    []metrics.StableCollector
}

// Factory returns a factory of metrics named csi_provisioner_subsystem_name
// that lists each metric it makes in s.
func (s *Set) Factory(subsystem string) Factory {
	return Factory{Namespace: Namespace, Subsystem: subsystem, set: s}
}

// AddCollector lists a metric computed at scrape time that no factory
// made.
func (s *Set) AddCollector(c metrics.StableCollector) { s.addCollector(c) }

// Registerables lists the metrics for MustRegister.
func (s *Set) Registerables() []metrics.Registerable { return s.registerables }

// Collectors lists the metrics computed at scrape time, for
// CustomMustRegister.
func (s *Set) Collectors() []metrics.StableCollector { return s.collectors }

// MustRegisterIn registers every metric of s in registry.
func (s *Set) MustRegisterIn(registry metrics.KubeRegistry) {
	registry.MustRegister(s.registerables...)
	registry.CustomMustRegister(s.collectors...)
}

// add and addCollector list a metric of a factory, which may have no set.
func (s *Set) add(r metrics.Registerable) {
	if s != nil {
		s.registerables = append(s.registerables, r)
	}
}

func (s *Set) addCollector(c metrics.StableCollector) {
	if s != nil {
		s.collectors = append(s.collectors, c)
	}
}
