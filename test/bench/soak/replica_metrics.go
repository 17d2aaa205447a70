package soak

import (
	"context"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
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
	rss, err := bench.ResidentBytes(pid)
	if err != nil {
		return ReplicaSample{Pid: pid}
	}
	text, err := scrape(ctx, r)
	if err != nil {
		return ReplicaSample{Pid: pid, RSSBytes: rss}
	}
	s := ReplicaSample{Pid: pid, Up: true, RSSBytes: rss}
	s.Goroutines, _ = framework.MetricSum(text, "go_goroutines")
	s.HeapInuse, _ = framework.MetricSum(text, "go_memstats_heap_inuse_bytes")
	leading, _ := framework.MetricSum(text, "leader_election_master_status")
	s.Leader = leading > 0
	s.Orphaned, _ = framework.MetricSum(text, "csi_provisioner_orphan_audit_orphaned_volumes")
	return s
}

// liveHeap reads the heap allocated, right after the GC of a heap profile.
func liveHeap(ctx context.Context, r *replica) float64 {
	text, err := scrape(ctx, r)
	if err != nil {
		return 0
	}
	v, _ := framework.MetricSum(text, "go_memstats_heap_alloc_bytes")
	return v
}

func isLeader(ctx context.Context, r *replica) bool {
	text, err := scrape(ctx, r)
	if err != nil {
		return false
	}
	leading, err := framework.MetricSum(text, "leader_election_master_status")
	return err == nil && leading > 0
}

func scrape(ctx context.Context, r *replica) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
	defer cancel()
	return framework.Scrape(ctx, r.metricsURL)
}

// saveHeapProfile saves the replica's heap profile, taken after a GC, for
// `go tool pprof -diff_base` between two moments.
func saveHeapProfile(ctx context.Context, r *replica, path string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return bench.SaveHeapProfile(ctx, strings.TrimSuffix(r.metricsURL, "/metrics")+"/debug/pprof/heap?gc=1", path)
}
