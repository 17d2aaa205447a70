package capacity

import (
	"context"

	"k8s.io/client-go/tools/cache"
)

// Topology lists the segments the driver serves now.
type Topology interface {
	// Segments lists the current segments by key.
	Segments() (map[string]Segment, error)
	// OnChange registers fn, called when the segments may have changed.
	OnChange(fn func())
	// Synced are the caches Segments reads, and the first listing of a
	// topology that keeps its own.
	Synced() []cache.InformerSynced
	// Run keeps the segments current until ctx ends. The controller's Run
	// calls it, once.
	Run(ctx context.Context)
}

// FixedTopology is one segment that never changes: the local node's with
// --node-deployment, or every node for a driver without topology.
type FixedTopology struct{ Segment Segment }

func (f FixedTopology) Segments() (map[string]Segment, error) {
	return map[string]Segment{f.Segment.Key(): f.Segment}, nil
}
func (FixedTopology) OnChange(func())                {}
func (FixedTopology) Synced() []cache.InformerSynced { return nil }
func (FixedTopology) Run(context.Context)            {}
