package recyclebin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/internal/reconcile"
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
func newClaim(namespace, name string, uid types.UID, volume string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: uid},
		Spec: v1.PersistentVolumeClaimSpec{
			VolumeName:       volume,
			StorageClassName: ptr.To("fast"),
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:        v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("10Gi")}},
		},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
	}
}

// theOldClaim is the claim a newVolume was bound to, still there: the
// cache has not seen it go, or a restore just named it.
func theOldClaim() *v1.PersistentVolumeClaim {
	c := newClaim(oldNamespace, oldClaim, oldUID, "")
	c.Status.Phase = v1.ClaimBound
	return c
}

// newClass is the StorageClass "fast"; retention, unless "", is its
// retention annotation.
func newClass(retention string) *storagev1.StorageClass {
	class := &storagev1.StorageClass{
		ObjectMeta:  metav1.ObjectMeta{Name: "fast", Annotations: map[string]string{"example.com/tier": "gold"}},
		Provisioner: driver,
	}
	if retention != "" {
		class.Annotations[AnnRetention] = retention
	}
	return class
}

// setup is what a test starts from.
type setup struct {
	// retention is --volume-retention.
	retention time.Duration
	volumes   []*v1.PersistentVolume
	claims    []*v1.PersistentVolumeClaim
	classes   []*storagev1.StorageClass
	// owns is Options.Owns; nil owns every volume.
	owns func(pv *v1.PersistentVolume) (bool, error)
}

// env is a Bin and a Controller over started informers of a fake API
// server that enforces resourceVersion preconditions. Bin tests call the
// bin; controller tests start the workers with run and wait for syncs.
type env struct {
	client    *fake.Clientset
	bin       *Bin
	ctrl      *Controller
	clock     *testingclock.FakePassiveClock
	events    *eventLog
	handOvers *handOvers
	deletions *volumeDeletions
	registry  metrics.KubeRegistry
	ctx       context.Context
	// syncs are the outcomes of the loop's syncs by PV name, results
	// what each asked of the loop.
	syncs   testutil.Syncs[string]
	results results
	// changed counts the changes the API server made to each PV.
	changed changes
}

func newEnv(t *testing.T, s setup) *env {
	t.Helper()
	var objs []runtime.Object
	for _, pv := range s.volumes {
		objs = append(objs, pv)
	}
	for _, c := range s.claims {
		objs = append(objs, c)
	}
	for _, c := range s.classes {
		objs = append(objs, c)
	}
	client := testutil.NewClientsetWithOptions(testutil.APIServerOptions{
		StatusSubresources: []string{"persistentvolumes", "persistentvolumeclaims"},
	}, objs...)
	// The objects above are the cluster; only what comes after is the
	// code's.
	client.ClearActions()

	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	registry := metrics.NewKubeRegistry()
	m := NewMetrics()
	registry.MustRegister(m.Registerables()...)
	factory := informers.NewSharedInformerFactory(client, 0)
	volumes := factory.Core().V1().PersistentVolumes()
	claims := factory.Core().V1().PersistentVolumeClaims()
	classes := factory.Storage().V1().StorageClasses()
	e := &env{
		client:    client,
		clock:     testingclock.NewFakePassiveClock(start),
		events:    newEventLog(),
		handOvers: &handOvers{},
		deletions: &volumeDeletions{},
		registry:  registry,
		ctx:       ctx,
	}
	e.bin = NewBin(BinOptions{
		Policy:  Policy{Default: s.retention},
		Classes: classes.Lister(),
		Claims:  claims.Lister(),
		Clock:   e.clock,
	})
	ctrl, err := New(Options{
		Client:         client,
		VolumeInformer: volumes,
		ClaimInformer:  claims,
		Bin:            e.bin,
		Fit:            FitOptions{Driver: driver},
		HandOver:       e.handOvers.handOver,
		DeleteVolume:   e.deletions.delete,
		// The fixtures' PVs carry the library's finalizer.
		LibraryFinalizer: libraryFinalizer,
		Owns:             s.owns,
		EventRecorder:    e.events,
		Metrics:          m,
		Clock:            e.clock,
		RateLimiter:      testutil.InstantRetries[string](),
		Processed: func(name string, result reconcile.Result, err error) {
			e.results.add(name, result)
			e.syncs.Processed(name, result, err)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctrl = ctrl
	e.changed.watch(t, ctx, client)
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	t.Cleanup(func() {
		cancel()
		ctrl.loop.ShutDown()
		factory.Shutdown()
	})
	return e
}

// run starts the workers; the test's cleanup stops them and waits.
func (e *env) run(t *testing.T) {
	t.Helper()
	testutil.RunUntilCleanup(t, e.ctx, func(ctx context.Context) { e.ctrl.Run(ctx, 2) })
}

// waitSyncs waits until name has been synced n times in all, and fails
// the test if a sync failed other than on a conflict: a sync that decided
// on a copy the cache had not yet updated fails on its write's pin, and
// the loop retries it on the fresher copy.
func (e *env) waitSyncs(t *testing.T, name string, n int) {
	t.Helper()
	for i, err := range e.syncs.Wait(t, 5*time.Second, name, n) {
		if err != nil && !apierrors.IsConflict(err) {
			t.Fatalf("sync %d of %s: %v", i+1, name, err)
		}
	}
}

// resync queues name, as an event or a requeue does, and waits for one
// more sync of it, which decides on what the cache shows the API server
// has.
func (e *env) resync(t *testing.T, name string) {
	t.Helper()
	if pv, err := e.client.CoreV1().PersistentVolumes().Get(context.Background(), name, metav1.GetOptions{}); err == nil {
		e.waitCached(t, name, func(c *v1.PersistentVolume) bool { return c.ResourceVersion == pv.ResourceVersion })
	}
	n := e.syncs.Count(name)
	e.ctrl.loop.Add(name)
	e.waitSyncs(t, name, n+1)
}

func (e *env) waitCached(t *testing.T, name string, cond func(*v1.PersistentVolume) bool) {
	t.Helper()
	eventually(t, "the cache to show "+name, func() bool {
		pv, err := e.ctrl.volumes.Get(name)
		return err == nil && cond(pv)
	})
}

// pv reads a PV from the API server.
func (e *env) pv(t *testing.T, name string) *v1.PersistentVolume {
	t.Helper()
	return testutil.PV(t, e.client, name)
}

// updateVolume changes a PV on the API server, as a user does.
func (e *env) updateVolume(t *testing.T, name string, change volumeOption) {
	t.Helper()
	testutil.UpdatePV(t, e.client, name, change)
}

// watching waits until the informers have started their watches, which
// they do after their caches synced: the requests the code sends can be
// told from theirs from then on.
func (e *env) watching(t *testing.T) {
	t.Helper()
	eventually(t, "the informers to watch", func() bool {
		watches := map[string]int{}
		for _, a := range e.client.Actions() {
			if a.GetVerb() == "watch" {
				watches[a.GetResource().Resource]++
			}
		}
		// The PVs are also watched by the test (changed).
		return watches["persistentvolumes"] == 2 && watches["persistentvolumeclaims"] == 1 && watches["storageclasses"] == 1
	})
}

// requests counts every request sent to the API server so far, reads and
// the informers' list and watch included.
func (e *env) requests() int { return len(e.client.Actions()) }

// writes are the write requests sent to the API server for resource
// ("persistentvolumes"...), successful or not.
func (e *env) writes(resource string) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range e.client.Actions() {
		switch a.GetVerb() {
		case "create", "update", "patch", "delete", "deletecollection":
			if a.GetResource().Resource == resource {
				out = append(out, a)
			}
		}
	}
	return out
}

// volumePatches are the patches sent for PVs.
func (e *env) volumePatches() []k8stesting.PatchActionImpl {
	var out []k8stesting.PatchActionImpl
	for _, a := range e.writes("persistentvolumes") {
		if p, ok := a.(k8stesting.PatchActionImpl); ok {
			out = append(out, p)
		}
	}
	return out
}

// expectOneWritePinnedTo checks that the API server changed the PV once,
// by patches pinned to before's resourceVersion and UID: a patch sent from
// a copy the cache had not yet updated fails on its pin and changes
// nothing.
func (e *env) expectOneWritePinnedTo(t *testing.T, before *v1.PersistentVolume) {
	t.Helper()
	eventually(t, "the watch to see the write", func() bool { return e.changed.of(before.Name) > 0 })
	patches, writes := e.volumePatches(), e.writes("persistentvolumes")
	if n := e.changed.of(before.Name); n != 1 || len(patches) == 0 || len(patches) != len(writes) {
		t.Fatalf("%d changes to the PV by %v; want one patch", n, writes)
	}
	for _, p := range patches {
		if rv, uid := pinnedTo(t, p); rv != before.ResourceVersion || uid != before.UID {
			t.Errorf("patch %s is pinned to %q, %q; want the PV's version %q and UID %q", p.GetPatch(), rv, uid, before.ResourceVersion, before.UID)
		}
	}
}

// metric reads a recycle_bin metric by its short name.
func (e *env) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.Metric(t, e.registry, "csi_provisioner_recycle_bin_"+name)
}

// waitGauges waits until the gauges say volumes volumes of bytes in all
// are kept, or fails the test with what they say.
func (e *env) waitGauges(t *testing.T, what string, volumes, bytes float64) {
	t.Helper()
	var gotVolumes, gotBytes float64
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		gotVolumes, gotBytes = e.metric(t, "retained_volumes"), e.metric(t, "retained_bytes")
		if gotVolumes == volumes && gotBytes == bytes {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("kept: %v volumes, %v bytes; want %s: %v volumes, %v bytes", gotVolumes, gotBytes, what, volumes, bytes)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func names(pvs []*v1.PersistentVolume) []string {
	var out []string
	for _, pv := range pvs {
		out = append(out, pv.Name)
	}
	return out
}

// pinnedTo reports the resourceVersion and UID a merge patch is pinned to.
func pinnedTo(t *testing.T, patch k8stesting.PatchActionImpl) (string, types.UID) {
	t.Helper()
	var p struct {
		Metadata struct {
			ResourceVersion string    `json:"resourceVersion"`
			UID             types.UID `json:"uid"`
		} `json:"metadata"`
	}
	if patch.GetPatchType() != types.MergePatchType {
		t.Fatalf("patch type %s; want a merge patch", patch.GetPatchType())
	}
	if err := json.Unmarshal(patch.GetPatch(), &p); err != nil {
		t.Fatal(err)
	}
	return p.Metadata.ResourceVersion, p.Metadata.UID
}

// expectOnly checks that after is before with change made and a new
// resourceVersion: the write kept every other field.
func expectOnly(t *testing.T, before, after *v1.PersistentVolume, change volumeOption) {
	t.Helper()
	want := before.DeepCopy()
	change(want)
	want.ResourceVersion = after.ResourceVersion
	// The fake's field manager's bookkeeping, not the PV's content.
	want.ManagedFields = after.ManagedFields
	if !apiequality.Semantic.DeepEqual(want, after) {
		t.Errorf("the PV after the write differs from the one expected:\n%s", diffFields(t, want, after))
	}
}

// diffFields lists the fields, as path=value, that only want or only got
// has.
func diffFields(t *testing.T, want, got any) string {
	t.Helper()
	w, g := fields(t, want), fields(t, got)
	var out []string
	for _, f := range w {
		if !slices.Contains(g, f) {
			out = append(out, "- want "+f)
		}
	}
	for _, f := range g {
		if !slices.Contains(w, f) {
			out = append(out, "+ got  "+f)
		}
	}
	return strings.Join(out, "\n")
}

// fields flattens obj, as JSON, into path=value lines.
func fields(t *testing.T, obj any) []string {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		default:
			out = append(out, fmt.Sprintf("%s=%v", path, v))
		}
	}
	walk("", v)
	slices.Sort(out)
	return out
}
