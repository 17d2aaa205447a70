package memory

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/bench"
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
