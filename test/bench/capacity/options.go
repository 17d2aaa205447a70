package capacity

import (
	"fmt"
	"time"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/bench"
)

// Options configures the capacity benchmark. Every configuration runs the
// same phases on a fresh stack of its own; see the package documentation.
type Options struct {
	bench.Settings
	// Nodes are the Node and CSINode objects registered before the
	// sidecar starts: one topology segment each.
	Nodes int
	// Classes are the WaitForFirstConsumer classes of the driver, each
	// with a pool of its own: one CSIStorageCapacity object per class
	// and node.
	Classes []Class
	// PollInterval is --capacity-poll-interval, and the period of the
	// driver's moves, so that every moving object changes once a poll.
	PollInterval time.Duration
	// Moving is how the driver's capacity moves in the moving phase; its
	// Period is PollInterval.
	Moving mockdriver.Moving
	// MovingPolls is how many poll intervals the moving phase lasts.
	MovingPolls int
	// FastQPS and FastBurst are --kube-api-capacity-qps and -burst of the
	// convergence and churn phases.
	FastQPS   float64
	FastBurst int
	// ChurnNodes leave and as many join in the churn phase.
	ChurnNodes int
	// SampleEvery is how often the moving phase samples the queue and the
	// published objects.
	SampleEvery time.Duration
	// Variants are the configurations compared: ours and, with a
	// baseline, the upstream binary. Every variant runs under the
	// shipped RBAC and rbac-capacity.yaml (a superset of upstream's
	// capacity rules), as the memory benchmark runs its baseline.
	Variants []bench.Variant
}

// Class is a StorageClass of the benchmark and its pool.
type Class struct {
	Name string `json:"name"`
	// Pool is the driver's pool the class selects (PoolParameter), of
	// PoolSize bytes on every node.
	Pool     string `json:"pool"`
	PoolSize int64  `json:"poolSize"`
	// LargestRequest is the largest claim of the class in bytes, which
	// the benchmark creates as a pending claim (with one of a tenth of
	// it): an object whose published capacity is on the other side of it
	// than the driver's answer hides a change that matters to the
	// scheduler (a pod placed where its volume no longer fits, or kept
	// from a node where it does).
	LargestRequest int64 `json:"largestRequest"`
}

// Ours is this repository's sidecar, at the defaults: the budget and the
// poll are what every phase sets.
var Ours = bench.Variant{Name: "ours"}

// gib is a binary gigabyte.
const gib int64 = 1 << 30

// DefaultClasses are two classes of different pools: one whose largest
// request is its pool's size (the driver's moves cross it half the time),
// one whose largest request is 90% of it.
func DefaultClasses() []Class {
	return []Class{
		{Name: "capacity-fast", Pool: "fast", PoolSize: 100 * gib, LargestRequest: 100 * gib},
		{Name: "capacity-bulk", Pool: "bulk", PoolSize: 1024 * gib, LargestRequest: 900 * gib},
	}
}

// DefaultOptions is the field's case: 2,000 nodes, a fifth of them moving
// by up to 30% every minute, published at the default poll (1m) and
// budget (1 QPS, burst 5): 800 objects change per poll against 60 writes
// a minute. The moving phase lasts 6 polls; one run per configuration,
// since a run takes about 10 minutes.
func DefaultOptions() Options {
	o := Options{
		Settings:     bench.DefaultSettings(),
		Nodes:        2000,
		Classes:      DefaultClasses(),
		PollInterval: time.Minute,
		Moving:       mockdriver.Moving{Share: 0.2, Amplitude: 0.3, Seed: 1201},
		MovingPolls:  6,
		FastQPS:      100,
		FastBurst:    100,
		ChurnNodes:   200,
		Variants:     []bench.Variant{Ours},
	}
	o.Runs = 1
	o.PhaseTimeout = 5 * time.Minute
	o.SampleEvery = o.PollInterval / 12
	return o
}

// QuickOptions is the short mode: 200 nodes and a 6-second poll, which
// keeps the field's ratio of changes to budget (80 objects change per poll
// against 6 writes at 1 QPS), 8 polls of moving; one to two minutes per
// configuration.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Quick = true
	o.Nodes, o.ChurnNodes = 200, 20
	o.PollInterval = 6 * time.Second
	o.MovingPolls = 8
	o.SampleEvery = o.PollInterval / 12
	o.PhaseTimeout = 2 * time.Minute
	return o
}

// objects is how many CSIStorageCapacity objects the nodes make.
func (o Options) objects() int { return o.Nodes * len(o.Classes) }

// moving is the driver's motion of the moving phase.
func (o Options) moving() mockdriver.Moving {
	m := o.Moving
	m.Period = o.PollInterval
	m.Now = nil
	return m
}

func (o Options) check() error {
	switch {
	case o.Nodes <= 0 || len(o.Classes) == 0 || o.Runs <= 0 || len(o.Variants) == 0:
		return fmt.Errorf("options need Nodes, Classes, Runs and Variants")
	case o.PollInterval <= 0 || o.MovingPolls <= 0 || o.SampleEvery <= 0:
		return fmt.Errorf("options need a positive PollInterval, MovingPolls and SampleEvery")
	case o.FastQPS <= 0 || o.FastBurst <= 0:
		return fmt.Errorf("options need a positive FastQPS and FastBurst")
	case o.ChurnNodes < 0 || o.ChurnNodes > o.Nodes:
		return fmt.Errorf("ChurnNodes must be between 0 and Nodes")
	}
	return nil
}
