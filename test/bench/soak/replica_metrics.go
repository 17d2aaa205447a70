package soak

import (
	"context"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// scrapeTimeout bounds one metrics read: a replica being restarted does
// not answer at all.
const scrapeTimeout = 2 * time.Second

// ReplicaSample is one replica at one moment.
type ReplicaSample struct {
	Pid int `json:"pid"`
	// Up is false while the process is down or not answering; the
	// figures below are then zero.
	Up       bool  `json:"up"`
	RSSBytes int64 `json:"rssBytes"`
	// HeapInuse is the Go heap in use: what RSS grows with when
	// something is kept, without the runtime's slack.
	HeapInuse float64 `json:"heapInuse"`
	// LiveHeap is the heap allocated right after a forced GC (when a heap
	// profile was taken, every profileEvery; 0 otherwise): what the
	// process keeps, without garbage.
	LiveHeap   float64 `json:"liveHeap,omitempty"`
	Goroutines float64 `json:"goroutines"`
	Leader     bool    `json:"leader"`
	// Orphaned is the orphan audit's gauge, which only the leader sets.
	Orphaned float64 `json:"orphaned"`
}

func sampleReplica(ctx context.Context, r *replica) ReplicaSample {
	if exited, _ := r.proc.Exited(); exited {
		return ReplicaSample{}
	}
	pid := r.proc.Pid()
	rss, err := measure.ResidentBytes(pid)
	if err != nil {
		return ReplicaSample{Pid: pid}
	}
	m, err := scrape(ctx, r)
	if err != nil {
		return ReplicaSample{Pid: pid, RSSBytes: rss}
	}
	s := ReplicaSample{Pid: pid, Up: true, RSSBytes: rss}
	s.Goroutines, _ = m.Sum("go_goroutines", nil)
	s.HeapInuse, _ = m.Sum("go_memstats_heap_inuse_bytes", nil)
	s.Leader = leading(m)
	s.Orphaned, _ = m.Sum("csi_provisioner_orphan_audit_orphaned_volumes", nil)
	return s
}

// liveHeap reads the heap allocated, right after the GC of a heap profile.
func liveHeap(ctx context.Context, r *replica) float64 {
	m, err := scrape(ctx, r)
	if err != nil {
		return 0
	}
	v, _ := m.Sum("go_memstats_heap_alloc_bytes", nil)
	return v
}

func isLeader(ctx context.Context, r *replica) bool {
	m, err := scrape(ctx, r)
	return err == nil && leading(m)
}

// leading tells whether the replica's leader election gauge says it leads.
func leading(m measure.Metrics) bool {
	v, err := m.Sum("leader_election_master_status", nil)
	return err == nil && v > 0
}

func scrape(ctx context.Context, r *replica) (measure.Metrics, error) {
	return measure.Scrape(ctx, r.metricsURL, scrapeTimeout)
}

// saveHeapProfile saves the replica's heap profile, taken after a GC, for
// `go tool pprof -diff_base` between two moments.
func saveHeapProfile(ctx context.Context, r *replica, path string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return measure.SaveHeapProfile(ctx, strings.TrimSuffix(r.metricsURL, "/metrics")+"/debug/pprof/heap?gc=1", path)
}
