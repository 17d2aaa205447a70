package soak

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

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
	HeapInuse  float64 `json:"heapInuse"`
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
	rss, err := readRSS(pid)
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

// readRSS is the resident set of a process, from /proc/<pid>/status.
func readRSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmRSS(data)
}

func parseVmRSS(status []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) == 3 && string(fields[0]) == "VmRSS:" && string(fields[2]) == "kB" {
			kb, err := strconv.ParseInt(string(fields[1]), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS line in kB")
}

// saveHeapProfile writes the replica's heap profile, taken after a GC, to
// path, for `go tool pprof -diff_base` between two moments.
func saveHeapProfile(ctx context.Context, r *replica, path string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	url := strings.TrimSuffix(r.metricsURL, "/metrics") + "/debug/pprof/heap?gc=1"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
