package recyclebin

import (
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

// The claim a test volume was released by, and the one a restore gives it
// to.
const (
	oldNamespace = "apps"
	oldClaim     = "data"
	oldUID       = types.UID("uid-claim-1")
	newNamespace = "restored"
	newClaimName = "data-again"
	newUID       = types.UID("uid-claim-2")
)

const gi = 1 << 30

// libraryFinalizer is the provisioning library's PV finalizer.
const libraryFinalizer = "external-provisioner.volume.kubernetes.io/finalizer"

// start is the fake clock's time when a test begins: off the whole second,
// so that a deadline shows whether it was cut to whole seconds.
var start = now.Add(300 * time.Millisecond)

// volumeOption changes a test PV.
type volumeOption func(*v1.PersistentVolume)

// newVolume is a PV of the driver whose claim apps/data was just deleted:
// Released, reclaim policy Delete, class "fast", 10Gi. It carries what a
// real one may carry besides (kubectl's last-applied annotation, other
// annotations and labels, finalizers, volume attributes, node affinity,
// mount options), so that a write that drops any of it shows.
func newVolume(name string, opts ...volumeOption) *v1.PersistentVolume {
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			UID:  types.UID("uid-" + name),
			Annotations: map[string]string{
				"pv.kubernetes.io/provisioned-by":                       driver,
				"volume.kubernetes.io/provisioner-deletion-secret-name": "delete-secret",
				"kubectl.kubernetes.io/last-applied-configuration":      `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"` + name + `"}}`,
				"example.com/owner":                                     "team-a",
			},
			Labels: map[string]string{
				"app":                       "db",
				"topology.example.com/zone": "zone-a",
			},
			Finalizers: []string{"kubernetes.io/pv-protection", libraryFinalizer},
		},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:                   []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce, v1.ReadOnlyMany},
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimDelete,
			StorageClassName:              "fast",
			VolumeMode:                    ptr.To(v1.PersistentVolumeFilesystem),
			MountOptions:                  []string{"noatime"},
			ClaimRef: &v1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: oldNamespace, Name: oldClaim, UID: oldUID, ResourceVersion: "4242",
			},
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver:       driver,
				VolumeHandle: "vol-" + name,
				FSType:       "ext4",
				VolumeAttributes: map[string]string{
					"pool": "ssd",
					"storage.kubernetes.io/csiProvisionerIdentity": "1700000000000-8081-" + driver,
				},
			}},
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{
					Key: "topology.example.com/zone", Operator: v1.NodeSelectorOpIn, Values: []string{"zone-a"},
				}},
			}}}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeReleased},
	}
	for _, o := range opts {
		o(pv)
	}
	return pv
}

// recordedUntil is a volume kept until until: what the controller writes
// when it keeps one (the deadline and where from, the label, reclaim policy
// Retain with Delete recorded, the bin's finalizer), and the library's
// finalizer gone, as the library removes it from a PV that says Retain.
func recordedUntil(until time.Time) volumeOption {
	return func(pv *v1.PersistentVolume) {
		keptUnprotected(until)(pv)
		protectedByTheBin(pv)
	}
}

// keptUnprotected is a volume kept until until by a sidecar that did not
// protect what it kept: only the deadline, where from and the label.
func keptUnprotected(until time.Time) volumeOption {
	return func(pv *v1.PersistentVolume) {
		pv.Annotations[AnnRetainedUntil] = until.UTC().Format(time.RFC3339)
		pv.Annotations[AnnRetainedFrom] = fmt.Sprintf("%s/%s %s", oldNamespace, oldClaim, oldUID)
		pv.Labels[LabelRetained] = "true"
	}
}

// protectedByTheBin is the protection of a kept volume, with the library's
// finalizer gone.
func protectedByTheBin(pv *v1.PersistentVolume) {
	pv.Spec.PersistentVolumeReclaimPolicy = v1.PersistentVolumeReclaimRetain
	pv.Annotations[AnnReclaimPolicy] = string(v1.PersistentVolumeReclaimDelete)
	pv.Finalizers = append(slices.DeleteFunc(slices.Clone(pv.Finalizers), func(f string) bool { return f == libraryFinalizer }), FinalizerKept)
}

// restoreTo is a user's restore request.
func restoreTo(claim string) volumeOption {
	return func(pv *v1.PersistentVolume) { pv.Annotations[AnnRestoreTo] = claim }
}

// purgeRequested is a user's purge request.
func purgeRequested(pv *v1.PersistentVolume) { pv.Annotations[AnnPurge] = "true" }

func capacity(size string) volumeOption {
	return func(pv *v1.PersistentVolume) {
		pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)}
	}
}

// givenBackToTheOldClaim marks the PV as given back to the claim its
// claimRef names (theOldClaim), as a give-back does.
func givenBackToTheOldClaim(pv *v1.PersistentVolume) {
	ref := pv.Spec.ClaimRef
	pv.Annotations[AnnRestoredTo] = ref.Namespace + "/" + ref.Name + " " + string(ref.UID)
}

func bound(pv *v1.PersistentVolume) { pv.Status.Phase = v1.VolumeBound }

func withoutFinalizers(pv *v1.PersistentVolume) { pv.Finalizers = nil }

// newClaim is a pending claim that fits a newVolume: it names volume, and
// asks for its class, one of its access modes, its volume mode and size.
func newClaim(namespace, name string, uid types.UID, volume string, opts ...testutil.ClaimOption) *v1.PersistentVolumeClaim {
	return testutil.NewClaim(namespace, name, append([]testutil.ClaimOption{
		testutil.WithUID(uid), testutil.WithVolumeName(volume), testutil.WithClass("fast"),
		testutil.WithSize("10Gi"), testutil.WithClaimPhase(v1.ClaimPending),
	}, opts...)...)
}

// theOldClaim is the claim a newVolume was bound to, still there: the
// cache has not seen it go, or a restore just named it.
func theOldClaim(opts ...testutil.ClaimOption) *v1.PersistentVolumeClaim {
	return newClaim(oldNamespace, oldClaim, oldUID, "", append([]testutil.ClaimOption{testutil.WithClaimPhase(v1.ClaimBound)}, opts...)...)
}

// newClass is the StorageClass "fast"; retention, unless "", is its
// retention annotation.
func newClass(retention string) *storagev1.StorageClass {
	class := testutil.NewClass("fast", driver, testutil.WithAnnotation("example.com/tier", "gold"))
	if retention != "" {
		class.Annotations[AnnRetention] = retention
	}
	return class
}
