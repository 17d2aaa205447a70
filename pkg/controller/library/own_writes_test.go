package library

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// updatesSeen counts the updates a library handler got.
type updatesSeen struct {
	cache.ResourceEventHandlerFuncs
	n *int
}

func (u updatesSeen) OnUpdate(_, _ any) { *u.n++ }

// handedOverClaim is a claim as kube-controller-manager hands it over, with
// everything others put on it.
func handedOverClaim() *v1.PersistentVolumeClaim {
	return testutil.NewClaim("default", "data", testutil.WithUID("uid-1"), testutil.WithResourceVersion("10"),
		testutil.WithAnnotations(map[string]string{
			"volume.kubernetes.io/storage-provisioner":         "mock.csi-protect.io",
			"kubectl.kubernetes.io/last-applied-configuration": `{"kind":"PersistentVolumeClaim"}`,
		}),
		testutil.WithLabel("team", "a"),
		testutil.WithFinalizers("kubernetes.io/pvc-protection"),
		testutil.WithClass("mock"), testutil.WithClaimPhase(v1.ClaimPending))
}

// next is claim after a write that change made.
func next(claim *v1.PersistentVolumeClaim, change func(*v1.PersistentVolumeClaim)) *v1.PersistentVolumeClaim {
	c := claim.DeepCopy()
	c.ResourceVersion += "1"
	change(c)
	return c
}

func libraryGets(old, cur *v1.PersistentVolumeClaim) bool {
	n := 0
	withoutOwnWrites{updatesSeen{n: &n}}.OnUpdate(old, cur)
	return n == 1
}

func TestTheLibraryDoesNotSeeTheSidecarsOwnClaimWrites(t *testing.T) {
	claim := handedOverClaim()
	protected := next(claim, func(c *v1.PersistentVolumeClaim) {
		c.Finalizers = append(c.Finalizers, provisionstate.ProvisioningProtectionFinalizer)
		c.Annotations[provisionstate.AnnVolumeNameTemplate] = `{"template":"{{.UID}}"}`
	})
	onlyOurs := next(claim, func(c *v1.PersistentVolumeClaim) {
		c.Finalizers = []string{provisionstate.ProvisioningProtectionFinalizer}
		c.Annotations = map[string]string{provisionstate.AnnParameterClaimMetadata: "{}"}
	})
	for name, update := range map[string][2]*v1.PersistentVolumeClaim{
		"the finalizer and records put on before CreateVolume": {claim, protected},
		"the finalizer and records taken off": {protected, next(protected, func(c *v1.PersistentVolumeClaim) {
			c.Finalizers = claim.Finalizers
			delete(c.Annotations, provisionstate.AnnVolumeNameTemplate)
		})},
		"the claim condition written": {claim, next(claim, func(c *v1.PersistentVolumeClaim) {
			c.Status.Conditions = []v1.PersistentVolumeClaimCondition{{Type: claimconditions.ConditionType, Status: v1.ConditionTrue, Reason: "Provisioning"}}
		})},
		"a clone source's cloning finalizer": {claim, next(claim, func(c *v1.PersistentVolumeClaim) {
			c.Finalizers = append(c.Finalizers, provisionstate.CloningProtectionFinalizer)
		})},
		"a claim left with no finalizer or annotation": {onlyOurs, next(onlyOurs, func(c *v1.PersistentVolumeClaim) { c.Finalizers, c.Annotations = nil, nil })},
	} {
		if libraryGets(update[0], update[1]) {
			t.Errorf("%s: the library got the update; upstream's never sees such a write", name)
		}
	}
}

func TestTheLibrarySeesEveryOtherClaimChange(t *testing.T) {
	claim := handedOverClaim()
	for name, cur := range map[string]*v1.PersistentVolumeClaim{
		"a resync of the same version": claim.DeepCopy(),
		"the scheduler's selected node with the finalizer": next(claim, func(c *v1.PersistentVolumeClaim) {
			c.Finalizers = append(c.Finalizers, provisionstate.ProvisioningProtectionFinalizer)
			c.Annotations["volume.kubernetes.io/selected-node"] = "node-1"
		}),
		"another controller's finalizer": next(claim, func(c *v1.PersistentVolumeClaim) {
			c.Finalizers = append(c.Finalizers, "example.com/backup")
		}),
		"a label": next(claim, func(c *v1.PersistentVolumeClaim) { c.Labels["team"] = "b" }),
		"the deletion": next(claim, func(c *v1.PersistentVolumeClaim) {
			now := metav1.Now()
			c.DeletionTimestamp = &now
		}),
		"the claim bound": next(claim, func(c *v1.PersistentVolumeClaim) {
			c.Spec.VolumeName = "pvc-uid-1"
			c.Status.Phase = v1.ClaimBound
		}),
		"a claim of another UID under the name": next(claim, func(c *v1.PersistentVolumeClaim) { c.UID = "uid-2" }),
	} {
		if !libraryGets(claim, cur) {
			t.Errorf("%s: the library did not get the update", name)
		}
	}
}

func TestAClaimHandedBackStillReachesTheLibrary(t *testing.T) {
	n := 0
	handlers := &libraryHandlers{}
	informer := libraryInformer{handlers: handlers, wrap: func(h cache.ResourceEventHandler) cache.ResourceEventHandler { return withoutOwnWrites{h} }}
	informer.handler(updatesSeen{n: &n})
	claim := handedOverClaim()
	for _, h := range handlers.list() {
		h.OnUpdate(claim, claim) // as requeue sends it
	}
	if n != 1 {
		t.Fatalf("the library got %d updates of a claim handed back, want 1", n)
	}
}

func TestTheFilterLeavesTheCachedClaimsAlone(t *testing.T) {
	claim := handedOverClaim()
	claim.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
	protected := next(claim, func(c *v1.PersistentVolumeClaim) {
		c.Finalizers = append(c.Finalizers, provisionstate.ProvisioningProtectionFinalizer)
		c.Annotations[provisionstate.AnnVolumeNameTemplate] = `{"template":"{{.UID}}"}`
		c.Status.Conditions = []v1.PersistentVolumeClaimCondition{{Type: claimconditions.ConditionType, Status: v1.ConditionTrue, Reason: "Provisioning"}}
	})
	oldBefore, curBefore := claim.DeepCopy(), protected.DeepCopy()
	if libraryGets(claim, protected) {
		t.Fatal("the library got the sidecar's own write")
	}
	if !apiequality.Semantic.DeepEqual(claim, oldBefore) || !apiequality.Semantic.DeepEqual(protected, curBefore) {
		t.Errorf("comparing the two versions changed them:\nold %+v\nnew %+v", claim, protected)
	}
	if len(protected.Finalizers) != 2 || len(protected.Annotations) != 3 || len(protected.Status.Conditions) != 1 || len(claim.ManagedFields) != 1 {
		t.Errorf("the cached claims lost finalizers, annotations, conditions or managed fields: %+v, %+v", claim, protected)
	}
}
