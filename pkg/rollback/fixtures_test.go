package rollback

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/claimconditions"
	"github.com/csi-protect/external-provisioner/pkg/driverscope"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
	"github.com/csi-protect/external-provisioner/pkg/recyclebin"
)

const (
	driver         = "ebs.csi.aws.com"
	lastApplied    = "kubectl.kubernetes.io/last-applied-configuration"
	otherFinalizer = "example.com/backup"
	// now is the check's clock; deadlines are a day later, or earlier.
	deadline       = "2026-06-02T09:00:00Z"
	passedDeadline = "2026-05-31T09:00:00Z"
)

var now = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// env is a cluster behind a fake API server that keeps resourceVersions
// and the claims' status subresource as a real one does.
type env struct {
	client *fake.Clientset
	out    bytes.Buffer
}

func newEnv(objs ...runtime.Object) *env {
	return &env{client: testutil.NewClientsetWithOptions(testutil.APIServerOptions{StatusSubresources: []string{"persistentvolumeclaims"}}, objs...)}
}

// run runs the check in mode, with the fake's actions of the setup
// forgotten.
func (e *env) run(t *testing.T, mode Mode) *Report {
	t.Helper()
	e.client.ClearActions()
	e.out.Reset()
	c, err := New(Options{Client: e.client, Mode: mode, Out: &e.out, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	r, err := c.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *env) claim(t *testing.T, name string) *v1.PersistentVolumeClaim {
	t.Helper()
	claim, err := e.client.CoreV1().PersistentVolumeClaims("shop").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return claim
}

// writes are the fake's actions that write.
func (e *env) writes() []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range e.client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
		default:
			out = append(out, a)
		}
	}
	return out
}

// only returns the one finding of the object, failing if there is not
// exactly one.
func only(t *testing.T, r *Report, kind, object string) Finding {
	t.Helper()
	var found []Finding
	for _, f := range r.Findings {
		if f.Kind == kind && f.object() == object {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d findings of %s %s, want 1: %+v", len(found), kind, object, r.Findings)
	}
	return found[0]
}

func requireAction(t *testing.T, f Finding, verb Verb, why string) {
	t.Helper()
	if f.Action.Verb != verb || !strings.Contains(f.Action.Why, why) {
		t.Errorf("%s %s: action %q, want %q saying %q", f.Kind, f.object(), f.Action, Action{Verb: verb}, why)
	}
}

// claim is a claim of the shop namespace that carries everything a claim
// may besides what the check looks for: kubectl's annotation, labels,
// another finalizer, the binder's annotations and a status.
func claim(name string, phase v1.PersistentVolumeClaimPhase) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "shop",
			Labels:     map[string]string{"app": "postgres"},
			Finalizers: []string{"kubernetes.io/pvc-protection", otherFinalizer},
			Annotations: map[string]string{
				lastApplied:                        `{"apiVersion":"v1","kind":"PersistentVolumeClaim"}`,
				driverscope.AnnStorageProvisioner:  driver,
				provisionstate.AnnProvisioningNode: "node-1",
			},
		},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:   v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
		},
		Status: v1.PersistentVolumeClaimStatus{
			Phase:      phase,
			Capacity:   v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			Conditions: []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimResizing, Status: v1.ConditionTrue}},
		},
	}
}

// protected adds the provisioning-protection finalizer and records.
func protected(c *v1.PersistentVolumeClaim, records ...string) *v1.PersistentVolumeClaim {
	c.Finalizers = append(c.Finalizers, provisionstate.ProvisioningProtectionFinalizer)
	return recorded(c, records...)
}

func recorded(c *v1.PersistentVolumeClaim, records ...string) *v1.PersistentVolumeClaim {
	for _, key := range records {
		c.Annotations[key] = `{"recorded":true}`
	}
	return c
}

func deleting(c *v1.PersistentVolumeClaim) *v1.PersistentVolumeClaim {
	c.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Minute)}
	return c
}

func withCondition(c *v1.PersistentVolumeClaim, reason string) *v1.PersistentVolumeClaim {
	c.Status.Conditions = append(c.Status.Conditions, v1.PersistentVolumeClaimCondition{
		Type: claimconditions.ConditionType, Status: v1.ConditionTrue, Reason: reason, Message: "CreateVolume is running",
	})
	return c
}

// keptPV is a PV the recycle bin keeps until deadline, protected as the
// bin protects it: reclaim policy Retain, the policy it had recorded, and
// the bin's finalizer, next to everything else a PV carries.
func keptPV(name string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:       name,
			Labels:     map[string]string{recyclebin.LabelRetained: "true", "team": "shop"},
			Finalizers: []string{"kubernetes.io/pv-protection", "external-provisioner.volume.kubernetes.io/finalizer", recyclebin.FinalizerKept},
			Annotations: map[string]string{
				driverscope.AnnProvisionedBy: driver,
				recyclebin.AnnRetainedUntil:  deadline,
				recyclebin.AnnRetainedFrom:   "shop/data-0 3f1c9a2b-0000-4000-8000-000000000000",
				recyclebin.AnnReclaimPolicy:  string(v1.PersistentVolumeReclaimDelete),
			},
		},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: "vol-" + name}},
			ClaimRef:                      &v1.ObjectReference{Namespace: "shop", Name: "data-0"},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeReleased},
	}
}

func class(name string, params map[string]string) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: driver, Parameters: params}
}
