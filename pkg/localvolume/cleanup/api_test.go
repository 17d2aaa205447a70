package cleanup

// The tests' reads and writes of the fake API servers, and what the
// controller sent them.

import (
	"context"
	"path"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
)

// createOwner stores a LocalVolume or LocalVolumeSet as a user would.
func (e *env) createOwner(t *testing.T, o ownerObject) {
	t.Helper()
	switch o := o.(type) {
	case *localv1.LocalVolume:
		testutil.Create(t, e.local.LocalV1().LocalVolumes(o.Namespace), o)
	case *localv1alpha1.LocalVolumeSet:
		testutil.Create(t, e.local.LocalV1alpha1().LocalVolumeSets(o.Namespace), o)
	default:
		t.Fatalf("not an owner: %T", o)
	}
}

// deleteOwner deletes an owner as kubectl does: with its finalizer, the API
// server only sets its deletionTimestamp.
func (e *env) deleteOwner(t *testing.T, kind string) {
	t.Helper()
	switch kind {
	case KindLocalVolume:
		testutil.Delete(t, e.local.LocalV1().LocalVolumes(testNS), ownerName)
	case KindLocalVolumeSet:
		testutil.Delete(t, e.local.LocalV1alpha1().LocalVolumeSets(testNS), ownerName)
	}
}

// owner reads an owner from the fake API server, nil if it is gone.
func (e *env) owner(t *testing.T, kind string) *owner {
	t.Helper()
	obj, err := e.local.Tracker().Get(e.ctrl.kinds[kind].gvr, testNS, ownerName)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	o, ok := ownerOf(obj)
	if !ok {
		t.Fatalf("not an owner: %T", obj)
	}
	return o
}

// pv reads a PV from the fake API server, nil if it is gone.
func (e *env) pv(t *testing.T, name string) *corev1.PersistentVolume {
	t.Helper()
	obj, err := e.Client.Tracker().Get(pvGVR, "", name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*corev1.PersistentVolume)
}

// updatePV changes a PV on the fake API server, as another client would.
func (e *env) updatePV(t *testing.T, name string, change func(*corev1.PersistentVolume)) {
	t.Helper()
	testutil.UpdatePV(t, e.Client, name, change)
}

// byUser marks the deletes of the tests, which play the user: the
// controller never sets a propagation policy, so writes and deletes leave
// them out.
var byUser = metav1.DeletePropagationBackground

// userDeletesPV deletes a PV as a user would: its finalizers keep it, being
// deleted.
func (e *env) userDeletesPV(t *testing.T, name string) {
	t.Helper()
	if err := e.Client.CoreV1().PersistentVolumes().Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: &byUser}); err != nil {
		t.Fatal(err)
	}
}

// agentReleases does what the node agent does once it has cleaned a PV
// being deleted: it removes its finalizer, and the PV goes.
func (e *env) agentReleases(t *testing.T, name string) {
	t.Helper()
	pv := e.pv(t, name)
	if pv == nil || pv.DeletionTimestamp == nil {
		t.Fatalf("PV %s is not being deleted: %v", name, pv)
	}
	e.updatePV(t, name, func(pv *corev1.PersistentVolume) { pv.Finalizers = nil })
	if e.pv(t, name) != nil {
		t.Fatalf("PV %s still there without finalizers", name)
	}
}

func (e *env) createNode(t *testing.T, node *corev1.Node) {
	t.Helper()
	testutil.Create(t, e.Client.CoreV1().Nodes(), node)
}

func (e *env) deleteNode(t *testing.T, name string) {
	t.Helper()
	testutil.Delete(t, e.Client.CoreV1().Nodes(), name)
}

// actions are what the controller sent to both fake API servers.
func (e *env) actions() []k8stesting.Action {
	return append(e.Client.Actions(), e.local.Actions()...)
}

// writes lists the controller's writes to the fake API servers, as "verb
// resource name", the resource with its subresource
// ("localvolumes/status"). The controller only patches, and deletes PVs;
// the tests' own writes (creates, updates, deletes byUser and of owners and
// Nodes) are left out.
func (e *env) writes() []string {
	var out []string
	for _, a := range e.actions() {
		switch a := a.(type) {
		case k8stesting.PatchActionImpl:
			out = append(out, "patch "+path.Join(a.Resource.Resource, a.Subresource)+" "+a.Name)
		case k8stesting.DeleteActionImpl:
			if a.Resource == pvGVR && a.DeleteOptions.PropagationPolicy == nil {
				out = append(out, "delete "+a.Resource.Resource+" "+a.Name)
			}
		}
	}
	return out
}

// writesBesidesStatus is writes without those of the owners' status.
func (e *env) writesBesidesStatus() []string {
	return slices.DeleteFunc(e.writes(), func(w string) bool { return strings.Contains(w, "/status ") })
}

// statusPatches returns the patches sent for the status of owners.
func (e *env) statusPatches() []k8stesting.PatchActionImpl {
	return testutil.Patches(e.local.Actions(), testutil.OnSubresource("status"))
}

// deletes returns the delete actions the controller sent for PVs.
func (e *env) deletes() []k8stesting.DeleteActionImpl {
	var out []k8stesting.DeleteActionImpl
	for _, a := range e.Client.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok && d.Resource == pvGVR && d.DeleteOptions.PropagationPolicy == nil {
			out = append(out, d)
		}
	}
	return out
}

// patches returns the patch actions sent for PVs or owners, not for their
// status.
func (e *env) patches(resource string) []k8stesting.PatchActionImpl {
	return testutil.Patches(e.actions(), testutil.On(resource), testutil.OnSubresource(""))
}
