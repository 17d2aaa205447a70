//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// The finalizers Kubernetes' own protection controllers use; ours use the
// same strings so that both agree on every object.
const (
	pvProtection  = "kubernetes.io/pv-protection"
	pvcProtection = "kubernetes.io/pvc-protection"
	// scheduledNode is the node pods are "scheduled" to: no kubelet runs,
	// so a pod with spec.nodeName set stays as created.
	scheduledNode = "node-1"
)

// volumeProtectionStack runs the sidecar with PV and PVC protection on and
// kube-controller-manager with the PV binder alone. The admission plugin
// that puts both finalizers on new objects is off too, so every finalizer
// seen comes from the sidecar.
func volumeProtectionStack(t *testing.T, extraArgs ...string) (context.Context, *framework.Stack) {
	t.Helper()
	return startStack(t, framework.StackOptions{
		Cluster: framework.ClusterOptions{
			KCMControllers: []string{framework.ControllerPVBinder},
			APIServerArgs:  []string{"--disable-admission-plugins=StorageObjectInUseProtection"},
		},
		Sidecar: framework.SidecarOptions{
			// A client limit that does not make provisioning the claims
			// the slow part of the tests.
			ExtraArgs: append([]string{"--feature-gates=PVProtection=true,PVCProtection=true",
				"--kube-api-qps=100", "--kube-api-burst=200"}, extraArgs...),
			ExtraRBACManifests: []string{framework.VolumeProtectionRBACManifest},
		},
	})
}

// provisionProtected provisions a claim and waits until the sidecar has put
// both protection finalizers on it and its PV.
func provisionProtected(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name, class string) (*corev1.PersistentVolumeClaim, *corev1.PersistentVolume) {
	t.Helper()
	createClaim(ctx, t, s, namespace, name, class)
	pvc, pv := waitForClaimBound(ctx, t, s, namespace, name)
	waitFor(ctx, t, s, fmt.Sprintf("%s on PVC %s/%s and %s on PV %s", pvcProtection, namespace, name, pvProtection, pv.Name), func(ctx context.Context) (bool, error) {
		c, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		v, err := s.Client().CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pvc, pv = c, v
		return slices.Contains(c.Finalizers, pvcProtection) && slices.Contains(v.Finalizers, pvProtection),
			fmt.Errorf("claim finalizers %v, volume finalizers %v", c.Finalizers, v.Finalizers)
	})
	return pvc, pv
}

// createScheduledPod creates a pod already bound to a node that uses the
// claim, as the scheduler would leave it.
func createScheduledPod(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name, claim string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PodSpec{
			NodeName:   scheduledNode,
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
			Volumes: []corev1.Volume{{
				Name:         "data",
				VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}},
			}},
		},
	}
	if _, err := s.Client().CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s/%s: %v", namespace, name, err)
	}
}

// forceDeletePod removes a pod at once: without a kubelet nothing would
// ever confirm a graceful deletion.
func forceDeletePod(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string) {
	t.Helper()
	err := s.Client().CoreV1().Pods(namespace).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("delete pod %s/%s: %v", namespace, name, err)
	}
}

// checkTerminating fails the test unless the claim exists with a
// deletionTimestamp, which is what kubectl shows as Terminating.
func checkTerminating(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string) {
	t.Helper()
	pvc, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("PVC %s/%s must still exist while a pod uses it: %v", namespace, name, err)
	}
	if pvc.DeletionTimestamp == nil || !slices.Contains(pvc.Finalizers, pvcProtection) {
		t.Fatalf("PVC %s/%s: deletionTimestamp %v, finalizers %v; want Terminating and held by %s", namespace, name, pvc.DeletionTimestamp, pvc.Finalizers, pvcProtection)
	}
}

// waitForVolumeEvent waits for an event of the reason about a PV; events
// about cluster-scoped objects go to the default namespace.
func waitForVolumeEvent(ctx context.Context, t *testing.T, s *framework.Stack, name, reason string) corev1.Event {
	t.Helper()
	return waitForEvent(ctx, t, s, "PersistentVolume", "", name, "", reason)
}

func TestClaimUsedByScheduledPodStaysTerminatingUntilThePodIsDeleted(t *testing.T) {
	ctx, s := volumeProtectionStack(t)
	const ns = "default"
	createStorageClass(ctx, t, s, "protected")
	_, pv := provisionProtected(ctx, t, s, ns, "data", "protected")

	createScheduledPod(ctx, t, s, ns, "app", "data")
	deleteClaim(ctx, t, s, ns, "data")
	held := waitForClaimEvent(ctx, t, s, ns, "data", corev1.EventTypeNormal, "DeletionHeldByPod")
	if !containsAll(held.Message, ns+"/app") {
		t.Errorf("the hold event must name the pod: %q", held.Message)
	}
	keptAfterALook(ctx, t, s, logKeepingClaim, `PVC="`+ns+`/data"`, nudgeClaim(ctx, t, s, ns, "data"))
	checkTerminating(ctx, t, s, ns, "data")

	forceDeletePod(ctx, t, s, ns, "app")
	waitForClaimEvent(ctx, t, s, ns, "data", corev1.EventTypeNormal, "DeletionReleased")
	waitForClaimGone(ctx, t, s, ns, "data")
	// The claim's PV is Released, deleted by its reclaim policy, and no
	// longer held by PV protection.
	waitForPVGone(ctx, t, s, pv.Name)
	waitForDriverVolumes(ctx, t, s, 0)
}

func TestBoundVolumeStaysTerminatingUntilItsClaimIsGone(t *testing.T) {
	ctx, s := volumeProtectionStack(t)
	const ns = "default"
	createStorageClass(ctx, t, s, "protected")
	_, pv := provisionProtected(ctx, t, s, ns, "data", "protected")

	if err := s.Client().CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete PV: %v", err)
	}
	held := waitForVolumeEvent(ctx, t, s, pv.Name, "DeletionHeldByClaim")
	if !containsAll(held.Message, ns+"/data") {
		t.Errorf("the hold event must name the claim: %q", held.Message)
	}
	keptAfterALook(ctx, t, s, logKeepingPV, `PV="`+pv.Name+`"`, nudgePV(ctx, t, s, pv.Name))
	got, err := s.Client().CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("a Bound PV must survive its deletion: %v", err)
	}
	if got.DeletionTimestamp == nil || got.Status.Phase != corev1.VolumeBound {
		t.Fatalf("PV: deletionTimestamp %v, phase %s; want Terminating and Bound", got.DeletionTimestamp, got.Status.Phase)
	}

	deleteClaim(ctx, t, s, ns, "data")
	waitForClaimGone(ctx, t, s, ns, "data")
	waitForVolumeEvent(ctx, t, s, pv.Name, "DeletionReleased")
	waitForPVGone(ctx, t, s, pv.Name)
}

// A pod created and a claim deleted back to back, many times: the claim's
// deletion event can reach the sidecar before the pod's, and the sidecar
// must never take the missing pod for no pod. Once in a namespace of few
// pods, which the sidecar lists live (bounded), and once in one of more
// than that bound, which it proves fresh with the probe and the watch.
func TestPodCreatedJustBeforeClaimDeletionIsNeverMissed(t *testing.T) {
	ctx, s := volumeProtectionStack(t)
	createStorageClass(ctx, t, s, "protected")
	const small, large = "race-small", "race-large"
	raceClaimDeletionsWithPods(ctx, t, s, small, 0)
	raceClaimDeletionsWithPods(ctx, t, s, large, 101)
	checkPodRequests(t, s, small, large)
}

// raceClaimDeletionsWithPods creates filler scheduled pods (using claims of
// their own) in namespace, then 30 times a pod and the deletion of its
// claim back to back, and checks every claim is held until its pod goes.
func raceClaimDeletionsWithPods(ctx context.Context, t *testing.T, s *framework.Stack, ns string, filler int) {
	t.Helper()
	const trials = 30
	createNamespace(ctx, t, s, ns)
	for i := range filler {
		createScheduledPod(ctx, t, s, ns, fmt.Sprintf("filler-%d", i), fmt.Sprintf("filler-claim-%d", i))
	}
	for i := range trials {
		createClaim(ctx, t, s, ns, fmt.Sprintf("claim-%d", i), "protected")
	}
	for i := range trials {
		provisionProtectedExisting(ctx, t, s, ns, fmt.Sprintf("claim-%d", i))
	}

	for i := range trials {
		claim := fmt.Sprintf("claim-%d", i)
		createScheduledPod(ctx, t, s, ns, fmt.Sprintf("pod-%d", i), claim)
		deleteClaim(ctx, t, s, ns, claim)
	}
	for i := range trials {
		waitForClaimEvent(ctx, t, s, ns, fmt.Sprintf("claim-%d", i), corev1.EventTypeNormal, "DeletionHeldByPod")
	}
	for i := range trials {
		claim := fmt.Sprintf("claim-%d", i)
		keptAfterALook(ctx, t, s, logKeepingClaim, `PVC="`+ns+`/`+claim+`"`, nudgeClaim(ctx, t, s, ns, claim))
		checkTerminating(ctx, t, s, ns, claim)
	}

	for i := range trials {
		forceDeletePod(ctx, t, s, ns, fmt.Sprintf("pod-%d", i))
	}
	for i := range trials {
		waitForClaimGone(ctx, t, s, ns, fmt.Sprintf("claim-%d", i))
	}
}

// podRequests are the sidecar's pod requests of one namespace.
type podRequests struct {
	// unbounded LISTs read the whole namespace, as kube-controller-manager
	// does; bounded ones ask for a limit; probes select a name no pod has.
	unbounded, bounded, probes, watches int
}

// checkPodRequests fails the test if the sidecar listed all pods beyond its
// informer's first LIST, or a namespace without a bound: the small
// namespace must be decided by bounded live LISTs, the large one by the
// pod cache proven fresh by the tiny freshness LISTs (and short watches
// when the cache was behind).
func checkPodRequests(t *testing.T, s *framework.Stack, small, large string) {
	t.Helper()
	events, err := sidecarAuditEvents(s)
	if err != nil {
		t.Fatalf("read audit log: %v", err)
	}
	informerLists := 0
	byNamespace := map[string]*podRequests{small: {}, large: {}}
	for _, ev := range events {
		if ev.ObjectRef == nil || ev.ObjectRef.Resource != "pods" {
			continue
		}
		if ev.Verb == "list" && ev.ObjectRef.Namespace == "" {
			informerLists++
			continue
		}
		r := byNamespace[ev.ObjectRef.Namespace]
		if r == nil {
			continue
		}
		switch {
		case ev.Verb == "list" && strings.Contains(ev.RequestURI, "fieldSelector=metadata.name"):
			r.probes++
		case ev.Verb == "list" && strings.Contains(ev.RequestURI, "limit="):
			r.bounded++
		case ev.Verb == "list":
			r.unbounded++
		case ev.Verb == "watch":
			r.watches++
		}
	}
	for ns, r := range byNamespace {
		t.Logf("sidecar pod requests in %s: %d unbounded LISTs, %d bounded LISTs, %d freshness LISTs, %d watches", ns, r.unbounded, r.bounded, r.probes, r.watches)
		if r.unbounded > 0 {
			t.Errorf("the sidecar listed every pod of %s %d times", ns, r.unbounded)
		}
	}
	if informerLists > 1 {
		t.Errorf("the sidecar listed every pod %d times; only its informer's first LIST is expected", informerLists)
	}
	if r := byNamespace[small]; r.bounded == 0 {
		t.Errorf("no bounded LIST of the small namespace %s: its claims were released without a live look", small)
	}
	// A watch follows only when the pod cache was behind the probe.
	if r := byNamespace[large]; r.probes+r.bounded == 0 {
		t.Errorf("the large namespace %s was not proven fresh with a consistent read", large)
	}
}

// provisionProtectedExisting waits for a claim created earlier to be Bound
// and carry the PVC protection finalizer.
func provisionProtectedExisting(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string) {
	t.Helper()
	waitForClaimBound(ctx, t, s, namespace, name)
	waitFor(ctx, t, s, fmt.Sprintf("%s on PVC %s/%s", pvcProtection, namespace, name), func(ctx context.Context) (bool, error) {
		c, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return slices.Contains(c.Finalizers, pvcProtection), fmt.Errorf("finalizers %v", c.Finalizers)
	})
}

func TestObjectsOutsideTheScopeAreUntouched(t *testing.T) {
	ctx, s := volumeProtectionStack(t)
	const ns = "default"
	createStorageClass(ctx, t, s, "protected")
	createStorageClass(ctx, t, s, "foreign", func(sc *storagev1.StorageClass) { sc.Provisioner = "other.example.com" })
	// One object of each kind in scope, to know the controllers ran.
	provisionProtected(ctx, t, s, ns, "ours", "protected")

	createClaim(ctx, t, s, ns, "theirs", "foreign")
	foreignPV := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "foreign-volume"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              "foreign",
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				CSI: &corev1.CSIPersistentVolumeSource{Driver: "other.example.com", VolumeHandle: "vol-1"},
			},
		},
	}
	if _, err := s.Client().CoreV1().PersistentVolumes().Create(ctx, foreignPV, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PV: %v", err)
	}
	createScheduledPod(ctx, t, s, ns, "foreign-app", "theirs")
	// In-scope objects of each kind made after the foreign ones: a watch
	// delivers a resource's changes in order, so once the controllers have
	// acted on these they have seen the foreign ones too (a claim and its
	// PV getting their finalizers; a pod holding its claim's deletion).
	provisionProtected(ctx, t, s, ns, "ours-2", "protected")
	createScheduledPod(ctx, t, s, ns, "ours-app", "ours-2")
	deleteClaim(ctx, t, s, ns, "ours-2")
	waitForClaimEvent(ctx, t, s, ns, "ours-2", corev1.EventTypeNormal, "DeletionHeldByPod")

	pvc := getClaim(ctx, t, s, ns, "theirs")
	if len(pvc.Finalizers) != 0 {
		t.Errorf("a claim of another provisioner got finalizers %v", pvc.Finalizers)
	}
	pv, err := s.Client().CoreV1().PersistentVolumes().Get(ctx, foreignPV.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pv.Finalizers) != 0 {
		t.Errorf("a PV of another driver got finalizers %v", pv.Finalizers)
	}
	events, err := claimEvents(ctx, s, ns, "theirs")
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if ev.Source.Component == "external-provisioner" || ev.ReportingController == "external-provisioner" {
			t.Errorf("the sidecar reported on a claim outside its scope: %s %q", ev.Reason, ev.Message)
		}
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
