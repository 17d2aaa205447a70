package controller

import (
	"context"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// The library adapter's redo of the library's reschedule is tested in
// pkg/controller/library/reschedule_test.go; here, with the provisioner's
// finalizer write, its forgetting and its ShouldProvision.

const zoneKey = "topology.test.csi-protect.io/zone"

// scheduledObjects are a WaitForFirstConsumer class and a claim the
// scheduler placed on node-1, whose driver registered a zone there.
func scheduledObjects() (*v1.PersistentVolumeClaim, *storagev1.StorageClass, *v1.Node, *storagev1.CSINode) {
	claim := newClaim("db", "1Gi")
	claim.Annotations = map[string]string{driverscope.AnnStorageProvisioner: testDriver, annSelectedNode: "node-1", "team": "db"}
	class := testutil.NewClass(testClass, testDriver, testutil.WithBindingMode(storagev1.VolumeBindingWaitForFirstConsumer))
	node := testutil.NewNode("node-1", testutil.WithLabel(zoneKey, "z1"))
	csiNode := testutil.NewCSINode("node-1", map[string][]string{testDriver: {zoneKey}})
	return claim, class, node, csiNode
}

func topologyDriver(o *Options) {
	o.PluginCapabilities[csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS] = true
}

// rescheduleEnv is a provisioner with provisioning protection on an API
// server with real write semantics, whose cache holds the server's claim.
type rescheduleEnv struct {
	*env
	server *fake.Clientset
	// cached is the claim as the library's cache holds it.
	cached *v1.PersistentVolumeClaim
	class  *storagev1.StorageClass
	node   *v1.Node
}

func newRescheduleEnv(t *testing.T, code codes.Code, mutate ...func(*v1.PersistentVolumeClaim)) *rescheduleEnv {
	t.Helper()
	claim, class, node, csiNode := scheduledObjects()
	for _, m := range mutate {
		m(claim)
	}
	// A claim's status is a subresource: an update of the claim leaves it.
	server := testutil.NewClientsetWithOptions(testutil.APIServerOptions{StatusSubresources: []string{"persistentvolumeclaims"}}, claim)
	r := &rescheduleEnv{server: server, class: class, node: node}
	// As the claim cache holds it: no managedFields, only the phase.
	r.cached = r.apiClaim(t)
	r.cached.ManagedFields = nil
	r.cached.Status = v1.PersistentVolumeClaimStatus{Phase: r.cached.Status.Phase}
	r.env = newEnv(t, envObjects{
		claims: []*v1.PersistentVolumeClaim{r.cached}, nodes: []*v1.Node{node}, csiNodes: []*storagev1.CSINode{csiNode},
	}, protectionOn, topologyDriver, func(o *Options) { o.Client = r.server })
	r.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return nil, status.Error(code, "driver says no")
	}
	return r
}

func (r *rescheduleEnv) apiClaim(t *testing.T) *v1.PersistentVolumeClaim {
	t.Helper()
	return testutil.Get(t, r.server.CoreV1().PersistentVolumeClaims(testNamespace), "db")
}

func (r *rescheduleEnv) provision(t *testing.T) controller.ProvisioningState {
	t.Helper()
	_, state, err := r.prov.Provision(context.Background(), controller.ProvisionOptions{
		StorageClass: r.class, PVName: "pvc-" + testClaimUID, PVC: r.cached, SelectedNode: r.node,
	})
	if err == nil {
		t.Fatal("provisioning succeeded against a driver that refuses it")
	}
	return state
}

// libraryReschedule does what the library's rescheduleProvisioning does:
// update its cached copy without the selected-node annotation.
func (r *rescheduleEnv) libraryReschedule() (*v1.PersistentVolumeClaim, *v1.PersistentVolumeClaim, error) {
	sent := r.cached.DeepCopy()
	delete(sent.Annotations, annSelectedNode)
	updated, err := r.prov.Library().Client(r.server, nil).CoreV1().PersistentVolumeClaims(testNamespace).Update(context.Background(), sent, metav1.UpdateOptions{})
	return sent, updated, err
}

func TestRescheduleAfterFinalizerWriteNeedsOneCreateVolume(t *testing.T) {
	r := newRescheduleEnv(t, codes.ResourceExhausted)
	if state := r.provision(t); state != controller.ProvisioningReschedule {
		t.Fatalf("state %s, want ProvisioningReschedule", state)
	}
	if r.apiClaim(t).ResourceVersion == r.cached.ResourceVersion {
		t.Fatal("fixture: the finalizer write must have made the cached claim stale")
	}
	sent, _, err := r.libraryReschedule()
	if err != nil {
		t.Fatalf("the library's reschedule failed (%v): it would provision the claim again", err)
	}
	live := r.apiClaim(t)
	if _, selected := live.Annotations[annSelectedNode]; selected {
		t.Fatal("the selected-node annotation is still on the claim")
	}
	if !finalizer.Has(live, provisionstate.ProvisioningProtectionFinalizer) || live.Annotations["team"] != "db" ||
		live.Annotations[driverscope.AnnStorageProvisioner] != testDriver {
		t.Fatalf("the reschedule lost more than the selected node: %v %v", live.Finalizers, live.Annotations)
	}
	// What the library stores in its cache is the server's copy.
	if sent.ResourceVersion != live.ResourceVersion || !finalizer.Has(sent, provisionstate.ProvisioningProtectionFinalizer) {
		t.Fatalf("the library would cache version %s with finalizers %v; the server has %s", sent.ResourceVersion, sent.Finalizers, live.ResourceVersion)
	}
	if n := len(r.csi.creates); n != 1 {
		t.Fatalf("%d CreateVolume calls, want 1", n)
	}
}

// The finalizer write before CreateVolume and the reschedule after it,
// both updates of the whole claim, keep every field a user's tools put on
// it; they change only the finalizer and the selected node.
func TestFinalizerWriteAndRescheduleKeepEveryFieldOfTheClaim(t *testing.T) {
	yes := true
	everything := func(claim *v1.PersistentVolumeClaim) {
		claim.Labels = map[string]string{"app": "db"}
		claim.Annotations[v1.LastAppliedConfigAnnotation] = `{"kind":"PersistentVolumeClaim"}`
		claim.Finalizers = []string{"kubernetes.io/pvc-protection", "backup.example.com/hold"}
		claim.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "sts-uid", Controller: &yes}}
		claim.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1"}}
		claim.Status = v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending, Conditions: []v1.PersistentVolumeClaimCondition{{Type: "Example", Status: v1.ConditionTrue}}}
	}
	r := newRescheduleEnv(t, codes.ResourceExhausted, everything)
	before := r.apiClaim(t)
	if state := r.provision(t); state != controller.ProvisioningReschedule {
		t.Fatalf("state %s, want ProvisioningReschedule", state)
	}
	if _, _, err := r.libraryReschedule(); err != nil {
		t.Fatal(err)
	}
	after := r.apiClaim(t)

	want := before.DeepCopy()
	want.Finalizers = append(want.Finalizers, provisionstate.ProvisioningProtectionFinalizer)
	delete(want.Annotations, annSelectedNode)
	want.ResourceVersion = after.ResourceVersion
	// The fake keeps managedFields as field management does; the e2e
	// suite checks kubectl's entry on a real API server.
	want.ManagedFields = after.ManagedFields
	if !equality.Semantic.DeepEqual(after.ObjectMeta, want.ObjectMeta) {
		t.Errorf("the claim's metadata changed beyond the finalizer and the selected node:\n%s", diff.Diff(want.ObjectMeta, after.ObjectMeta))
	}
	if !equality.Semantic.DeepEqual(after.Spec, before.Spec) || !equality.Semantic.DeepEqual(after.Status, before.Status) {
		t.Errorf("spec or status changed:\n%s", diff.Diff(before.Status, after.Status))
	}
}

// The informer may deliver the version the finalizer write made after the
// library cached the rescheduled claim: that copy, with the selected node
// still on it, is not provisioned again; the next version of the claim is.
func TestCopyOlderThanTheRescheduleIsNotProvisioned(t *testing.T) {
	r := newRescheduleEnv(t, codes.ResourceExhausted)
	if state := r.provision(t); state != controller.ProvisioningReschedule {
		t.Fatalf("state %s, want ProvisioningReschedule", state)
	}
	stale := r.apiClaim(t) // the finalizer write's version, selected node and all
	if _, _, err := r.libraryReschedule(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if r.prov.ShouldProvision(ctx, stale) {
		t.Fatal("a copy older than the reschedule would be provisioned on the node given back")
	}
	next := r.apiClaim(t)
	next.Annotations[annSelectedNode] = "node-1" // the scheduler picked it again
	next.ResourceVersion = "next"
	if !r.prov.ShouldProvision(ctx, next) {
		t.Fatal("a newer version of the claim is not provisioned")
	}
	if !r.prov.ShouldProvision(ctx, stale) {
		t.Fatal("the superseded version is remembered after a newer one was seen")
	}
}

func TestFinalizerWriteIsForgottenWhenProvisionDoesNotReschedule(t *testing.T) {
	r := newRescheduleEnv(t, codes.Internal)
	if state := r.provision(t); state != controller.ProvisioningFinished {
		t.Fatalf("state %s, want ProvisioningFinished", state)
	}
	// The write is forgotten: an update of the stale copy is left to
	// conflict, as any other, where a write kept would redo it.
	if _, _, err := r.libraryReschedule(); !apierrors.IsConflict(err) {
		t.Fatalf("err %v, want the conflict of a stale copy", err)
	}
}
