package memory

import (
	"context"
	"fmt"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// StackMemory is what the control plane needed to hold the pairs: etcd's
// and kube-apiserver's resident memory from /proc (VmHWM and VmRSS; etcd's
// process_resident_memory_bytes is the same VmRSS), and etcd's database
// from its own metrics, which it serves on its client URL. Sizes are
// bytes; a figure that could not be read is zero and says why in
// Problems.
type StackMemory struct {
	Etcd measure.ProcMemory `json:"etcd"`
	// EtcdDBSize is the database file (etcd_mvcc_db_total_size_in_bytes),
	// EtcdDBInUse the part of it holding data (…_in_use_in_bytes): the
	// rest is pages freed by compaction that only a defragmentation
	// returns. EtcdQuota is --quota-backend-bytes
	// (etcd_server_quota_backend_bytes): etcd refuses writes once the
	// file reaches it.
	EtcdDBSize  int64 `json:"etcdDBSize"`
	EtcdDBInUse int64 `json:"etcdDBInUse"`
	EtcdQuota   int64 `json:"etcdQuota"`
	// EtcdKeys is the number of keys (etcd_debugging_mvcc_keys_total):
	// the pairs, and what kube-apiserver and the controllers keep.
	EtcdKeys  int64              `json:"etcdKeys"`
	APIServer measure.ProcMemory `json:"apiserver"`
	Problems  []string           `json:"problems,omitempty"`
}

// readStackMemory reads the cluster's figures; what cannot be read is
// recorded, not fatal: the sidecars' figures do not depend on it.
func readStackMemory(ctx context.Context, c *framework.Cluster) StackMemory {
	var s StackMemory
	var err error
	if s.Etcd, err = measure.ReadProcMemory(c.Etcd().Pid()); err != nil {
		s.Problems = append(s.Problems, fmt.Sprintf("etcd's /proc status: %v", err))
	}
	if s.APIServer, err = measure.ReadProcMemory(c.APIServer().Pid()); err != nil {
		s.Problems = append(s.Problems, fmt.Sprintf("kube-apiserver's /proc status: %v", err))
	}
	m, err := measure.Scrape(ctx, c.EtcdURL()+"/metrics", scrapeTimeout)
	if err != nil {
		s.Problems = append(s.Problems, fmt.Sprintf("etcd's metrics: %v", err))
		return s
	}
	for _, f := range []struct {
		name string
		dst  *int64
	}{
		{"etcd_mvcc_db_total_size_in_bytes", &s.EtcdDBSize},
		{"etcd_mvcc_db_total_size_in_use_in_bytes", &s.EtcdDBInUse},
		{"etcd_server_quota_backend_bytes", &s.EtcdQuota},
		{"etcd_debugging_mvcc_keys_total", &s.EtcdKeys},
	} {
		v, err := m.Value(f.name)
		if err != nil {
			s.Problems = append(s.Problems, err.Error())
			continue
		}
		*f.dst = int64(v)
	}
	return s
}
