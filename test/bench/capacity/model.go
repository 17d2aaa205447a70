package capacity

import (
	"slices"
	"time"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// driverModel computes what the mock driver answers, without asking it: no
// volume is ever created, so every pool is free but for the driver's
// moves.
type driverModel struct {
	classes map[string]Class
	// moving is the driver's motion; the zero value is still.
	moving mockdriver.Moving
}

func newDriverModel(classes []Class, moving mockdriver.Moving) driverModel {
	m := driverModel{classes: map[string]Class{}, moving: moving}
	for _, c := range classes {
		m.classes[c.Name] = c
	}
	return m
}

// answer is the driver's GetCapacity for the object of key at a time.
func (m driverModel) answer(key framework.CapacityKey, at time.Time) int64 {
	c := m.classes[key.Class]
	return mockdriver.MovingCapacity(m.moving, key.Segment, c.Pool, c.PoolSize, c.PoolSize, at)
}

// wantedKeys are the objects the sidecar should publish for nodes: one per
// class and node.
func wantedKeys(classes []Class, nodes []string) []framework.CapacityKey {
	keys := make([]framework.CapacityKey, 0, len(classes)*len(nodes))
	for _, c := range classes {
		for _, n := range nodes {
			keys = append(keys, framework.CapacityKey{Class: c.Name, Segment: n})
		}
	}
	return keys
}

// published is what kube-apiserver holds at a moment: the capacity of
// every object by class and segment, and the objects that do not fit
// that shape.
type published struct {
	capacity map[framework.CapacityKey]int64
	// duplicates are objects beyond the first of a class and segment;
	// odd ones have a topology other than {TopologyKey: node}.
	duplicates, odd int
	// lastEvent is when the watch last delivered a change.
	lastEvent time.Time
}

// mismatch counts how far published is from the driver's answers at a
// time for the wanted objects: wanted ones missing or with another
// capacity, and objects nobody wants (including duplicates and odd ones).
// All three zero is convergence.
func (m driverModel) mismatch(at time.Time, wanted []framework.CapacityKey, p published) (missing, wrong, extra int) {
	want := make(map[framework.CapacityKey]bool, len(wanted))
	for _, k := range wanted {
		want[k] = true
		v, ok := p.capacity[k]
		switch {
		case !ok:
			missing++
		case v != m.answer(k, at):
			wrong++
		}
	}
	for k := range p.capacity {
		if !want[k] {
			extra++
		}
	}
	return missing, wrong, extra + p.duplicates + p.odd
}

// score compares the published capacities of the wanted objects with the
// driver's answers at a time: the sample's summary, with every object's
// relative error for the phase's distribution, and each object's side of
// its class's largest request for crossings.
func (m driverModel) score(at time.Time, wanted []framework.CapacityKey, p published, crossings *hiddenCrossings) (Sample, []float64) {
	var s Sample
	errs := make([]float64, 0, len(wanted))
	for _, k := range wanted {
		v, ok := p.capacity[k]
		if !ok {
			s.Missing++
			crossings.gone(at, k)
			continue
		}
		current := m.answer(k, at)
		e := relativeError(v, current)
		if e > 0 {
			s.Stale++
		}
		errs = append(errs, e)
		crossings.observe(at, k, v, current, m.classes[k.Class].LargestRequest)
	}
	s.Objects = len(errs)
	s.Hidden = crossings.open()
	sorted := slices.Clone(errs)
	slices.Sort(sorted)
	s.ErrorP50, s.ErrorP99 = quantile(sorted, 0.5), quantile(sorted, 0.99)
	if len(sorted) > 0 {
		s.ErrorMax = sorted[len(sorted)-1]
	}
	return s, errs
}
