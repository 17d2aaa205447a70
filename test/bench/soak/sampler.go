package soak

import (
	"context"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Sample is the run at one moment.
type Sample struct {
	At       time.Duration   `json:"at"`
	Replicas []ReplicaSample `json:"replicas"`
	// APIUp is false when kube-apiserver did not answer; Claims and PVs
	// are then unknown (-1).
	APIUp  bool `json:"apiUp"`
	Claims int  `json:"claims"`
	PVs    int  `json:"pvs"`
	// Volumes is what the backend holds; MaxPerName the most volumes it
	// holds under one name (more than 1 is a volume made twice).
	Volumes    int `json:"volumes"`
	MaxPerName int `json:"maxPerName"`
	// Gone counts the churned claims gone so far.
	Gone int `json:"gone"`
}

// profileEvery is how often each replica's heap profile is saved.
const profileEvery = 2 * time.Minute

// sampler takes a Sample every interval until ctx ends, and saves each
// replica's heap profile every profileEvery into profileDir.
type sampler struct {
	stack       *framework.Stack
	replicas    []*replica
	ledger      *ledger
	stuckAfter  time.Duration
	profileDir  string
	samples     []Sample
	lastProfile time.Duration
}

// run samples until ctx ends and returns the samples.
func (s *sampler) run(ctx context.Context, interval time.Duration) []Sample {
	_ = wait.PollUntilContextCancel(ctx, interval, true, func(ctx context.Context) (bool, error) {
		s.samples = append(s.samples, s.sample(ctx))
		return false, nil
	})
	return s.samples
}

func (s *sampler) sample(ctx context.Context) Sample {
	out := Sample{At: s.ledger.since(), Claims: -1, PVs: -1}
	profile := out.At-s.lastProfile >= profileEvery
	if profile {
		s.lastProfile = out.At
	}
	for i, r := range s.replicas {
		rs := sampleReplica(ctx, r)
		if profile && rs.Up {
			path := filepath.Join(s.profileDir, profileName(i, rs.Pid, out.At))
			// The profile is taken after a GC: the heap allocated right
			// after it is what the process keeps.
			if err := saveHeapProfile(ctx, r, path); err != nil {
				klog.FromContext(ctx).Error(err, "Save a heap profile", "replica", i)
			} else {
				rs.LiveHeap = liveHeap(ctx, r)
			}
		}
		out.Replicas = append(out.Replicas, rs)
	}
	listCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	claims, err := s.stack.Client().CoreV1().PersistentVolumeClaims(namespace).List(listCtx, metav1.ListOptions{})
	if err == nil {
		existing := map[string]bool{}
		for _, pvc := range claims.Items {
			existing[pvc.Name] = true
		}
		s.ledger.observe(existing, s.stuckAfter)
		out.APIUp, out.Claims = true, len(claims.Items)
		if pvs, err := s.stack.Client().CoreV1().PersistentVolumes().List(listCtx, metav1.ListOptions{}); err == nil {
			out.PVs = len(pvs.Items)
		}
	}
	if st, err := s.stack.DriverState(); err == nil {
		perName := map[string]int{}
		for _, v := range st.Volumes {
			perName[v.Name]++
			out.MaxPerName = max(out.MaxPerName, perName[v.Name])
		}
		out.Volumes = len(st.Volumes)
	} else {
		klog.FromContext(ctx).Error(err, "Read the driver's state")
	}
	out.Gone = s.ledger.goneCount()
	return out
}
