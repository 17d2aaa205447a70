package controller

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-base/metrics"

	"github.com/csi-protect/external-provisioner/internal/metricsutil"
)

var (
	pendingClaimsDesc = metricsutil.Desc("csi_provisioner_pending_claims",
		"Claims waiting for this provisioner: Pending, not being deleted, handed to this driver by the PV controller, and with Immediate binding or a selected node (with --node-deployment: this node, or none yet for an Immediate class).")
	oldestPendingClaimAgeDesc = metricsutil.Desc("csi_provisioner_oldest_pending_claim_age_seconds",
		"Seconds since the creation of the oldest claim csi_provisioner_pending_claims counts; 0 when none waits.")
)

// PendingClaims is a collector over the provisioner's claim cache, read
// when scraped: how many claims wait for this provisioner to make their
// volume, and for how long the oldest has. A standby replica, whose cache
// is not filled, reports 0.
type PendingClaims struct {
	metrics.BaseStableCollector

	now func() time.Time

	mu sync.Mutex
	p  *Provisioner
}

var _ metrics.StableCollector = &PendingClaims{}

func newPendingClaims() *PendingClaims {
	return &PendingClaims{now: time.Now}
}

// track makes p's caches the collector's source.
func (c *PendingClaims) track(p *Provisioner) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.p = p
}

// DescribeWithStability implements metrics.StableCollector.
func (c *PendingClaims) DescribeWithStability(ch chan<- *metrics.Desc) {
	ch <- pendingClaimsDesc
	ch <- oldestPendingClaimAgeDesc
}

// CollectWithStability implements metrics.StableCollector.
func (c *PendingClaims) CollectWithStability(ch chan<- metrics.Metric) {
	n, oldest := c.count()
	ch <- metrics.NewLazyConstMetric(pendingClaimsDesc, metrics.GaugeValue, float64(n))
	ch <- metrics.NewLazyConstMetric(oldestPendingClaimAgeDesc, metrics.GaugeValue, oldest.Seconds())
}

// count is the number of waiting claims and the age of the oldest.
func (c *PendingClaims) count() (int, time.Duration) {
	c.mu.Lock()
	p := c.p
	c.mu.Unlock()
	if p == nil {
		return 0, 0
	}
	claims, err := p.opts.ClaimLister.List(labels.Everything())
	if err != nil {
		return 0, 0
	}
	now := c.now()
	n, oldest := 0, time.Duration(0)
	for _, claim := range claims {
		if !p.waitsForVolume(claim) {
			continue
		}
		n++
		oldest = max(oldest, now.Sub(claim.CreationTimestamp.Time))
	}
	return n, oldest
}

// waitsForVolume tells whether claim waits for this provisioner to make its
// volume now: the PV controller handed it to this driver, nothing binds it
// yet, and its binding does not wait for a consumer (a claim of a
// WaitForFirstConsumer class waits for the scheduler until a node is
// selected). With --node-deployment, only this node's claims count, and the
// claims of Immediate classes that no node took yet, which every node may
// take.
func (p *Provisioner) waitsForVolume(claim *v1.PersistentVolumeClaim) bool {
	if claim.DeletionTimestamp != nil || claim.Spec.VolumeName != "" ||
		(claim.Status.Phase != v1.ClaimPending && claim.Status.Phase != "") || !p.ServesClaim(claim) {
		return false
	}
	switch selected := claim.Annotations[annSelectedNode]; {
	case selected != "":
		return p.node == nil || selected == p.node.NodeName
	case p.node != nil && !p.node.ImmediateBinding:
		return false
	}
	if claim.Spec.StorageClassName == nil {
		return false
	}
	class, err := p.opts.ClassLister.Get(*claim.Spec.StorageClassName)
	if err != nil {
		return false
	}
	return class.VolumeBindingMode == nil || *class.VolumeBindingMode == storagev1.VolumeBindingImmediate
}
