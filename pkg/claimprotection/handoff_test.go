package claimprotection

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

// When the sidecar stops serving claims, the provisioning-protection
// finalizer goes wherever it protects nothing (a Bound claim, a claim whose
// CreateVolume was refused for good), with the request records and nothing
// else; it stays, with an event, where a volume may exist that only it
// accounts for.
func TestHandOffReleasesTheClaimsThatNeedNoProtectionAndTellsTheOthers(t *testing.T) {
	const f = provisionstate.ProvisioningProtectionFinalizer
	withEverything := func(c *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
		c.Finalizers = append(c.Finalizers, "kubernetes.io/pvc-protection")
		c.Annotations = map[string]string{
			provisionstate.AnnVolumeNameTemplate:               `{"template":"x"}`,
			"kubectl.kubernetes.io/last-applied-configuration": "{}",
		}
		c.Labels = map[string]string{"app": "db"}
		return c
	}
	bound := withEverything(newClaim("bound", f))
	bound.Status.Phase = v1.ClaimBound
	refused := withEverything(newClaim("refused", f))
	inDoubt := withEverything(newClaim("in-doubt", f))
	deleting := withEverything(newClaim("deleting", f))
	deleting.DeletionTimestamp = &metav1.Time{}
	deletingRefused := withEverything(newClaim("deleting-refused", f))
	deletingRefused.DeletionTimestamp = &metav1.Time{}
	otherDriver := withEverything(newClaim("other", f))
	otherDriver.Status.Phase = v1.ClaimBound
	e := newEnv(t, setup{
		claims: []*v1.PersistentVolumeClaim{bound, refused, inDoubt, deleting, deletingRefused, otherDriver},
		serves: func(c *v1.PersistentVolumeClaim) bool { return c.Name != "other" },
	})
	for _, uid := range []string{"uid-refused", "uid-deleting-refused"} {
		e.calls.Begin(types.UID(uid))
		e.calls.End(types.UID(uid), provisionstate.Final)
	}

	if released := e.ctrl.HandOff(context.Background()); released != 3 {
		t.Errorf("released %d claims; want 3", released)
	}
	for _, name := range []string{"bound", "refused", "deleting-refused"} {
		c := e.claim(t, name)
		if has(c, f) || !has(c, "kubernetes.io/pvc-protection") {
			t.Errorf("claim %s has finalizers %v; want only kube-controller-manager's left", name, c.Finalizers)
		}
		if _, ok := c.Annotations[provisionstate.AnnVolumeNameTemplate]; ok || c.Annotations["kubectl.kubernetes.io/last-applied-configuration"] != "{}" || c.Labels["app"] != "db" {
			t.Errorf("claim %s: annotations %v, labels %v; want the record gone and the rest kept", name, c.Annotations, c.Labels)
		}
	}
	for _, name := range []string{"in-doubt", "deleting", "other"} {
		if c := e.claim(t, name); !has(c, f) {
			t.Errorf("claim %s lost the finalizer", name)
		}
	}
	events := e.Events.Drain()
	if n := len(events); n != 2 {
		t.Errorf("events = %q; want one on each of the two claims of this sidecar that keep it", events)
	}
	if !slices.ContainsFunc(events, func(ev string) bool { return strings.HasPrefix(ev, "Normal "+ReasonProtectionKept) }) {
		t.Errorf("events = %q; want %s", events, ReasonProtectionKept)
	}
}

// The caches stop with the workers, and claim conditions' hand-off writes
// the same claims meanwhile: a removal that conflicts reads the claim again
// and is made on the fresh copy.
func TestHandOffDecidesAgainOnAFreshCopyAfterAConflict(t *testing.T) {
	claim := newClaim("bound", provisionstate.ProvisioningProtectionFinalizer)
	claim.Status.Phase = v1.ClaimBound
	e := newEnv(t, setup{claims: []*v1.PersistentVolumeClaim{claim}})
	testutil.FailNext(e.Client, 1, apierrors.NewConflict(v1.Resource("persistentvolumeclaims"), "bound", errors.New("the object has been modified")),
		testutil.Verb("update"), testutil.On("persistentvolumeclaims"))

	if released := e.ctrl.HandOff(context.Background()); released != 1 {
		t.Errorf("released %d claims after a conflict; want 1", released)
	}
	if c := e.claim(t, "bound"); has(c, provisionstate.ProvisioningProtectionFinalizer) {
		t.Errorf("the claim keeps %v", c.Finalizers)
	}
}
