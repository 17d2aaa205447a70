package rollback

import (
	"bytes"
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
	ctx, _ := testutil.LoggingContext(t, 0)
	r, err := c.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *env) claim(t *testing.T, name string) *v1.PersistentVolumeClaim {
	t.Helper()
	return testutil.Get(t, e.client.CoreV1().PersistentVolumeClaims("shop"), name)
}

// writes are the fake's actions that write.
func (e *env) writes() []k8stesting.Action {
	return testutil.Actions(e.client.Actions(), testutil.Writes)
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
	return testutil.NewClaim("shop", name,
		testutil.WithLabel("app", "postgres"),
		testutil.WithFinalizers("kubernetes.io/pvc-protection", otherFinalizer),
		testutil.WithAnnotations(map[string]string{
			lastApplied:                        `{"apiVersion":"v1","kind":"PersistentVolumeClaim"}`,
			driverscope.AnnStorageProvisioner:  driver,
			provisionstate.AnnProvisioningNode: "node-1",
		}),
		testutil.WithClaimPhase(phase),
		testutil.ClaimFunc(func(c *v1.PersistentVolumeClaim) {
			c.Status.Capacity = v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}
			c.Status.Conditions = []v1.PersistentVolumeClaimCondition{{Type: v1.PersistentVolumeClaimResizing, Status: v1.ConditionTrue}}
		}),
	)
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
	return testutil.NewPV(name,
		testutil.WithLabels(map[string]string{recyclebin.LabelRetained: "true", "team": "shop"}),
		testutil.WithFinalizers("kubernetes.io/pv-protection", "external-provisioner.volume.kubernetes.io/finalizer", recyclebin.FinalizerKept),
		testutil.WithAnnotations(map[string]string{
			driverscope.AnnProvisionedBy: driver,
			recyclebin.AnnRetainedUntil:  deadline,
			recyclebin.AnnRetainedFrom:   "shop/data-0 3f1c9a2b-0000-4000-8000-000000000000",
			recyclebin.AnnReclaimPolicy:  string(v1.PersistentVolumeReclaimDelete),
		}),
		testutil.WithReclaimPolicy(v1.PersistentVolumeReclaimRetain),
		testutil.WithCSI(driver, "vol-"+name),
		testutil.ReleasedFrom("shop", "data-0", ""),
	)
}

func class(name string, params map[string]string) *storagev1.StorageClass {
	return testutil.NewClass(name, driver, testutil.WithParameters(params))
}
