package memory

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/bench"
	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

const (
	// cachedNamespace holds the bound claims that fill the sidecar's
	// caches; the batch of each run goes to bench.ClaimNamespace.
	cachedNamespace = "bench-cached"
	// cachedSize is a plausible size; the mock driver never sees it.
	cachedSize = "10Gi"

	// The annotations and finalizers csi-provisioner and
	// kube-controller-manager leave on a provisioned, bound pair.
	annBetaStorageProvisioner  = "volume.beta.kubernetes.io/storage-provisioner"
	annBindCompleted           = "pv.kubernetes.io/bind-completed"
	annBoundByController       = "pv.kubernetes.io/bound-by-controller"
	annProvisionedBy           = "pv.kubernetes.io/provisioned-by"
	annDeletionSecretName      = "volume.kubernetes.io/provisioner-deletion-secret-name"
	annDeletionSecretNamespace = "volume.kubernetes.io/provisioner-deletion-secret-namespace"
	finalizerPVCProtection     = "kubernetes.io/pvc-protection"
	finalizerPVProtection      = "kubernetes.io/pv-protection"
	// finalizerProvisioner is the one the sidecar keeps on its PVs with
	// HonorPVReclaimPolicy (on by default); without it the sidecar would
	// add it to every PV as it starts.
	finalizerProvisioner = "external-provisioner.volume.kubernetes.io/finalizer"
	// provisionerIDKey is the volume attribute naming the sidecar that
	// provisioned the volume (controller.ProvisionerIDKey).
	provisionerIDKey = "storage.kubernetes.io/csiProvisionerIdentity"
)

func cachedClaimName(i int) string { return fmt.Sprintf("data-%05d", i) }

// cachedVolumeName looks like the sidecar's "pvc-<claim UID>" and is as
// long, but is known before the claim exists, so the claim can be created
// with its volumeName.
func cachedVolumeName(i int) string { return fmt.Sprintf("pvc-00000000-0000-4000-8000-%012d", i) }

// cachedClaim is pair i's claim as it is once provisioned and bound, but
// for its status, which only UpdateStatus can set.
func cachedClaim(i int, driver string) *corev1.PersistentVolumeClaim {
	class := bench.ClassName
	mode := corev1.PersistentVolumeFilesystem
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:      cachedClaimName(i),
			Namespace: cachedNamespace,
			Annotations: map[string]string{
				annBindCompleted:            "yes",
				annBoundByController:        "yes",
				bench.AnnStorageProvisioner: driver,
				annBetaStorageProvisioner:   driver,
			},
			Finalizers: []string{finalizerPVCProtection},
		},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &class,
			VolumeMode:       &mode,
			VolumeName:       cachedVolumeName(i),
			Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(cachedSize)},
			},
		},
	}
}

// cachedVolume is the PV of pair i, bound to claim (which must have been
// created: its UID is in the claimRef), as the sidecar creates it and the
// binder leaves it, but for its status.
func cachedVolume(i int, driver string, claim *corev1.PersistentVolumeClaim) *corev1.PersistentVolume {
	mode := corev1.PersistentVolumeFilesystem
	name := cachedVolumeName(i)
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Annotations: map[string]string{
				annProvisionedBy:           driver,
				annDeletionSecretName:      "",
				annDeletionSecretNamespace: "",
			},
			Finalizers: []string{finalizerProvisioner, finalizerPVProtection},
		},
		Spec: corev1.PersistentVolumeSpec{
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(cachedSize)},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              bench.ClassName,
			VolumeMode:                    &mode,
			ClaimRef: &corev1.ObjectReference{
				Kind:            "PersistentVolumeClaim",
				APIVersion:      "v1",
				Namespace:       claim.Namespace,
				Name:            claim.Name,
				UID:             claim.UID,
				ResourceVersion: claim.ResourceVersion,
			},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: driver,
				// A cloud disk's handle is a path of this length rather
				// than the mock driver's short id.
				VolumeHandle: "projects/bench/zones/zone-a/disks/" + name,
				VolumeAttributes: map[string]string{
					provisionerIDKey: "1763700000000-" + strconv.Itoa(1000+i%9000) + "-" + driver,
					"pool":           "pool-" + strconv.Itoa(i%4),
					"replicas":       "3",
					"tier":           "standard",
				},
			}},
		},
	}
}

// boundClaimStatus and boundVolumeStatus are what the binder writes.
func boundClaimStatus(claim *corev1.PersistentVolumeClaim) {
	claim.Status = corev1.PersistentVolumeClaimStatus{
		Phase:       corev1.ClaimBound,
		AccessModes: claim.Spec.AccessModes,
		Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(cachedSize)},
	}
}

func boundVolumeStatus(pv *corev1.PersistentVolume) {
	now := metav1.Now()
	pv.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound, LastPhaseTransitionTime: &now}
}

// fill creates the pairs in their final state while kube-controller-
// manager is stopped, then starts it again and waits until its binder has
// been through them. With the binder running, it would bind every pair
// itself with several writes in a row, one pair at a time: about 40 pairs
// a second on two cores, four minutes for 10,000. Written in parallel by
// the benchmark, the pairs take a fraction of that, and the binder, finding
// them bound, writes nothing.
func (m *runner) fill(ctx context.Context) error {
	s, o := m.stack, m.opts
	if err := bench.EnsureNamespace(ctx, m.client, cachedNamespace); err != nil {
		return err
	}
	if err := s.Cluster().ControllerManager().Stop(); err != nil {
		return fmt.Errorf("stop kube-controller-manager: %w", err)
	}
	start := time.Now()
	cpuStart := measure.SampleCPU(measure.StackPIDs(m.stack, nil))
	driver := s.DriverName()
	res := bench.ForEach(ctx, indexNames(o.Objects), o.Creator.Workers, func(ctx context.Context, name string) error {
		i, _ := strconv.Atoi(name)
		return createPair(ctx, m.client, i, driver)
	}, nil, nil)
	m.rep.Setup.Create = time.Since(start)
	m.rep.Setup.OtherCores = measure.UsageBetween(cpuStart, measure.SampleCPU(measure.StackPIDs(m.stack, nil))).OtherCores
	if res.Failed > 0 {
		return fmt.Errorf("%d of %d pairs not created, first: %w", res.Failed, o.Objects, res.FirstErr)
	}

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
	if _, err := waitQuiet(ctx, s, o.SyncTimeout, "kube-controller-manager to go through the pairs", kcm, nil); err != nil {
		return err
	}
	m.rep.Setup.Settle = time.Since(start)
	setup := &m.rep.Setup
	if setup.ClaimsBound, setup.VolumesBound, setup.Rewritten, err = countBound(ctx, m.client, created.ResourceVersion); err != nil {
		return err
	}
	if setup.ClaimsBound != o.Objects || setup.VolumesBound != o.Objects {
		setup.Problems = append(setup.Problems, fmt.Sprintf("after settling, %d of %d claims and %d PVs Bound", setup.ClaimsBound, o.Objects, setup.VolumesBound))
	}
	return nil
}

// createPair writes one pair: the claim, then its PV (which names the
// claim's UID), then both statuses.
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

// indexNames are "0" to "n-1", for bench.ForEach over indices.
func indexNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return names
}
