package memory

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// fillTo grows the cluster from the pairs it holds to target: it creates
// the new pairs in their final state while kube-controller-manager is
// stopped, then starts it again and waits until its binder has been
// through them all. With the binder running, it would bind every pair
// itself with several writes in a row, one pair at a time: about 40 pairs
// a second on two cores, twenty minutes for 50,000. Written in parallel by
// the benchmark, the pairs take a fraction of that, and the binder,
// finding them bound, writes nothing. The step is recorded in
// Setup.Fills; an error leaves the cluster at an unknown size.
func (m *runner) fillTo(ctx context.Context, target int) error {
	s, o := m.stack, m.opts
	from := m.filled
	f := Fill{Pairs: target, Added: target - from}
	m.progress("[%s] memory: creating %s more bound claims and PVs, %s in all, %d at once", m.elapsed(), bench.Thousands(f.Added), bench.Thousands(target), o.FillWorkers)
	if err := s.Cluster().ControllerManager().Stop(); err != nil {
		return fmt.Errorf("stop kube-controller-manager: %w", err)
	}
	start := time.Now()
	cpuStart := measure.SampleCPU(measure.StackPIDs(s, nil))
	driver := s.DriverName()
	res := bench.ForEach(ctx, indexNames(from, target), o.FillWorkers, func(ctx context.Context, name string) error {
		i, _ := strconv.Atoi(name)
		return createPair(ctx, m.client, i, driver)
	}, nil, nil)
	f.Create = time.Since(start)
	f.OtherCores = measure.UsageBetween(cpuStart, measure.SampleCPU(measure.StackPIDs(s, nil))).OtherCores
	if res.Failed > 0 {
		return fmt.Errorf("%d of %d pairs not created, first: %w", res.Failed, f.Added, res.FirstErr)
	}
	m.filled = target

	// Every object written from now on gets a resource version above
	// this one: how many do tells whether the binder wrote anything.
	created, err := m.client.CoreV1().PersistentVolumeClaims(cachedNamespace).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return err
	}
	start = time.Now()
	if err := s.Cluster().RestartControllerManager(ctx); err != nil {
		return fmt.Errorf("restart kube-controller-manager: %w", err)
	}
	kcm := s.Cluster().ControllerManager().Pid()
	if _, err := waitQuiet(ctx, s, o.SettleTimeout, "kube-controller-manager to go through the pairs", kcm, nil); err != nil {
		return err
	}
	f.Settle = time.Since(start)
	if f.ClaimsBound, f.VolumesBound, f.Rewritten, err = countBound(ctx, m.client, created.ResourceVersion); err != nil {
		return err
	}
	if f.ClaimsBound != target || f.VolumesBound != target {
		m.rep.Setup.Problems = append(m.rep.Setup.Problems, fmt.Sprintf("after settling at %s pairs, %d claims and %d PVs Bound", bench.Thousands(target), f.ClaimsBound, f.VolumesBound))
	}
	f.Stack = readStackMemory(ctx, s.Cluster())
	m.rep.Setup.Fills = append(m.rep.Setup.Fills, f)
	m.rep.Setup.Objects = target
	m.progress("  created in %.1f s (%.0f pairs/s; other processes used %.2f cores), settled in %.1f s: %d claims and %d PVs Bound, %d rewritten while settling; etcd RSS %s (peak %s), database %s (%s in use); kube-apiserver RSS %s",
		f.Create.Seconds(), f.PairsPerSecond(), f.OtherCores, f.Settle.Seconds(), f.ClaimsBound, f.VolumesBound, f.Rewritten,
		fmtMiB(f.Stack.Etcd.RSS), fmtMiB(f.Stack.Etcd.PeakRSS), fmtMiB(f.Stack.EtcdDBSize), fmtMiB(f.Stack.EtcdDBInUse), fmtMiB(f.Stack.APIServer.RSS))
	return nil
}

// createPair writes one pair: the claim, then its PV (which names the
// claim's UID), then both statuses, which a create drops.
func createPair(ctx context.Context, client kubernetes.Interface, i int, driver string) error {
	claim, err := client.CoreV1().PersistentVolumeClaims(cachedNamespace).Create(ctx, cachedClaim(i, driver), metav1.CreateOptions{})
	if err != nil {
		return err
	}
	pv, err := client.CoreV1().PersistentVolumes().Create(ctx, cachedVolume(i, driver, claim), metav1.CreateOptions{})
	if err != nil {
		return err
	}
	boundVolumeStatus(pv)
	if _, err := client.CoreV1().PersistentVolumes().UpdateStatus(ctx, pv, metav1.UpdateOptions{}); err != nil {
		return err
	}
	boundClaimStatus(claim)
	_, err = client.CoreV1().PersistentVolumeClaims(cachedNamespace).UpdateStatus(ctx, claim, metav1.UpdateOptions{})
	return err
}

// countBound counts the Bound claims of cachedNamespace and the Bound PVs
// of their pairs, and the claims and PVs written after resource version
// since, which the API server gives out in increasing order.
func countBound(ctx context.Context, client kubernetes.Interface, since string) (claims, volumes, written int, err error) {
	after := func(rv string) bool {
		a, errA := strconv.ParseUint(rv, 10, 64)
		b, errB := strconv.ParseUint(since, 10, 64)
		return errA == nil && errB == nil && a > b
	}
	// A quorum read: what the binder wrote last must be in it.
	cl, err := client.CoreV1().PersistentVolumeClaims(cachedNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, 0, 0, err
	}
	for i := range cl.Items {
		if cl.Items[i].Status.Phase == corev1.ClaimBound {
			claims++
		}
		if after(cl.Items[i].ResourceVersion) {
			written++
		}
	}
	pvs, err := client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, 0, 0, err
	}
	for i := range pvs.Items {
		pv := &pvs.Items[i]
		if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Namespace != cachedNamespace {
			continue
		}
		if pv.Status.Phase == corev1.VolumeBound {
			volumes++
		}
		if after(pv.ResourceVersion) {
			written++
		}
	}
	return claims, volumes, written, nil
}

// indexNames are "from" to "to-1", for bench.ForEach over the indices of
// the pairs a step adds.
func indexNames(from, to int) []string {
	names := make([]string, 0, max(0, to-from))
	for i := from; i < to; i++ {
		names = append(names, strconv.Itoa(i))
	}
	return names
}
