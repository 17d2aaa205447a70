//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	local "github.com/csi-protect/external-provisioner/pkg/apis/local"
	"github.com/csi-protect/external-provisioner/pkg/localvolume/agent"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const (
	// localVolumeRBACManifest is the sidecar's extra RBAC for the clean-up
	// controller (localvolumes/localvolumesets list/watch/patch, and patch
	// of their status).
	localVolumeRBACManifest = "deploy/kubernetes/rbac-local-volumes.yaml"
	// withoutGateEnv, when set, runs the sidecar without
	// LocalVolumeCleanup: only the node agent's half is tested, and the
	// test deletes the PVs itself where the control plane would.
	withoutGateEnv = "E2E_LOCAL_VOLUME_WITHOUT_GATE"

	localNode  = "node-1"
	localClass = "local-e2e"
	lvsName    = "e2e-loops"
	// loopSize is an unusual size (70 MiB + 4 KiB), so that the exact-size
	// filter of the LocalVolumeSet can match no other disk of the machine.
	loopSize = 70<<20 + 4<<10
)

var lvsResource = schema.GroupVersionResource{Group: local.GroupName, Version: "v1alpha1", Resource: "localvolumesets"}

// loopPath matches the loop devices the agent names in its log.
var loopPath = regexp.MustCompile(`/dev/loop[0-9]+`)

// TestLocalVolumeSetDeletionWaitsForBoundVolumeAndWipesIt runs the node agent
// on two loop devices and deletes their LocalVolumeSet while one PV is bound:
// the set stays until the claim is gone (its DeletionBlocked condition True
// meanwhile), the unbound PV goes at once, the bound one is wiped (with the
// agent killed in the middle of it) and deleted, and every symlink is
// removed.
func TestLocalVolumeSetDeletionWaitsForBoundVolumeAndWipesIt(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the test attaches loop devices and the agent wipes them")
	}
	withGate := os.Getenv(withoutGateEnv) == ""
	opts := framework.StackOptions{}
	if withGate {
		opts.Sidecar = framework.SidecarOptions{
			ExtraArgs:          []string{"--feature-gates=LocalVolumeCleanup=true"},
			ExtraRBACManifests: []string{localVolumeRBACManifest},
		}
	} else {
		t.Logf("%s set: sidecar without LocalVolumeCleanup; the control plane's part is done by the test", withoutGateEnv)
	}
	ctx, s := startStack(t, opts)
	client := s.Client()
	dyn, err := dynamic.NewForConfig(s.Cluster().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Cluster().InstallLocalVolumeCRDs(ctx); err != nil {
		t.Fatalf("install CRDs: %v", err)
	}

	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: localNode, Labels: map[string]string{local.NodeLabel: localNode}}}
	if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Node: %v", err)
	}

	// Two loop devices, detached and removed whatever happens.
	var loops, backings []string
	t.Cleanup(func() {
		for i, dev := range loops {
			if err := framework.DetachLoopDevice(dev); err != nil {
				t.Errorf("detach %s: %v", dev, err)
				continue // keep the file of a device still attached
			}
			if err := os.RemoveAll(filepath.Dir(backings[i])); err != nil {
				t.Errorf("remove the backing file of %s: %v", dev, err)
			}
		}
	})
	for range 2 {
		dev, backing, err := framework.CreateLoopDevice(loopSize)
		if err != nil {
			t.Fatalf("create loop device: %v", err)
		}
		loops, backings = append(loops, dev), append(backings, backing)
	}
	t.Logf("loop devices: %v", loops)

	reclaim := corev1.PersistentVolumeReclaimDelete
	binding := storagev1.VolumeBindingImmediate
	sc := &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: localClass},
		Provisioner:       "kubernetes.io/no-provisioner",
		ReclaimPolicy:     &reclaim,
		VolumeBindingMode: &binding,
	}
	if _, err := client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create StorageClass: %v", err)
	}

	// The agent, under its shipped RBAC.
	symlinkRoot, err := os.MkdirTemp("", "e2e-symlinks-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(symlinkRoot) })
	agentKubeconfig := filepath.Join(s.WorkDir(), "local-volume-agent.kubeconfig")
	agentUser, err := s.Cluster().InstallLocalVolumeAgentRBAC(ctx, agentKubeconfig)
	if err != nil {
		t.Fatalf("install the agent's RBAC: %v", err)
	}
	agentLog := filepath.Join(s.WorkDir(), "local-volume-agent.log")
	agentProc, err := framework.StartLocalVolumeAgent(ctx, framework.LocalVolumeAgentOptions{
		NodeName:    localNode,
		SymlinkRoot: symlinkRoot,
		Kubeconfig:  agentKubeconfig,
		LogFile:     agentLog,
	})
	if err != nil {
		t.Fatalf("start agent: %v", err)
	}
	t.Cleanup(func() {
		if err := agentProc.UnexpectedExit(); err != nil {
			t.Errorf("agent: %v", err)
		}
		if err := agentProc.Stop(); err != nil {
			t.Errorf("stop agent: %v", err)
		}
		checkAgentNotForbidden(t, s, agentUser)
		if t.Failed() {
			t.Logf("local-volume-agent log (%s):\n%s", agentLog, strings.Join(framework.TailLog(agentLog, 80), "\n"))
		}
	})

	lvs := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": local.GroupName + "/v1alpha1",
		"kind":       "LocalVolumeSet",
		"metadata":   map[string]any{"name": lvsName, "namespace": metav1.NamespaceDefault},
		"spec": map[string]any{
			"storageClassName": localClass,
			"volumeMode":       "Filesystem",
			"fsType":           "ext4",
			"nodeSelector": map[string]any{"nodeSelectorTerms": []any{map[string]any{
				"matchExpressions": []any{map[string]any{"key": local.NodeLabel, "operator": "In", "values": []any{localNode}}},
			}}},
			"deviceInclusionSpec": map[string]any{
				"deviceTypes": []any{"loop"},
				"minSize":     fmt.Sprint(loopSize),
				"maxSize":     fmt.Sprint(loopSize),
			},
		},
	}}
	lvsClient := dyn.Resource(lvsResource).Namespace(metav1.NamespaceDefault)
	if _, err := lvsClient.Create(ctx, lvs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create LocalVolumeSet: %v", err)
	}

	// 1. Two PVs with the owner labels, each with its symlink to one of
	// the loop devices.
	ownerSel := labels.Set{
		local.OwnerKindLabel:      "LocalVolumeSet",
		local.OwnerNameLabel:      lvsName,
		local.OwnerNamespaceLabel: metav1.NamespaceDefault,
	}.AsSelector().String()
	pvDevice := map[string]string{} // PV name -> loop device
	waitFor(ctx, t, s, "two local PVs with symlinks to the loop devices", func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{LabelSelector: ownerSel})
		if err != nil {
			return false, err
		}
		clear(pvDevice)
		for _, pv := range list.Items {
			if pv.Spec.Local == nil {
				return false, fmt.Errorf("PV %s is not a local volume", pv.Name)
			}
			dev, err := symlinkTarget(symlinkRoot, pv.Spec.Local.Path)
			if err != nil {
				return false, fmt.Errorf("PV %s: %v", pv.Name, err)
			}
			if !slices.Contains(loops, dev) {
				return false, fmt.Errorf("PV %s points at %s, not one of our loop devices %v", pv.Name, dev, loops)
			}
			pvDevice[pv.Name] = dev
		}
		return len(pvDevice) == 2, fmt.Errorf("%d PV(s): %v", len(list.Items), pvDevice)
	})
	pvPath := map[string]string{}
	for name := range pvDevice {
		pv, err := client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pvPath[name] = pv.Spec.Local.Path
		if pv.Spec.StorageClassName != localClass || !slices.Contains(pv.Finalizers, local.SymlinkDeleterFinalizer) {
			t.Errorf("PV %s: class %q, finalizers %v", name, pv.Spec.StorageClassName, pv.Finalizers)
		}
	}
	t.Logf("PVs: %v", pvDevice)
	if withGate {
		waitFor(ctx, t, s, "the set's totalProvisionedDeviceCount to be 2", func(ctx context.Context) (bool, error) {
			got, err := lvsClient.Get(ctx, lvsName, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			n, found, err := unstructured.NestedInt64(got.Object, "status", "totalProvisionedDeviceCount")
			return err == nil && found && n == 2, fmt.Errorf("status %v (%v)", got.Object["status"], err)
		})
	}

	// 2. A claim binds one of them; "a pod" writes a filesystem onto it.
	createClaim(ctx, t, s, metav1.NamespaceDefault, "data", localClass, func(pvc *corev1.PersistentVolumeClaim) {
		pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("10Mi")
	})
	_, boundPV := waitForClaimBound(ctx, t, s, metav1.NamespaceDefault, "data")
	boundDev, ok := pvDevice[boundPV.Name]
	if !ok {
		t.Fatalf("claim bound to %s, not one of the agent's PVs %v", boundPV.Name, pvDevice)
	}
	var freePV string
	for name := range pvDevice {
		if name != boundPV.Name {
			freePV = name
		}
	}
	if err := framework.MkfsExt4(boundDev); err != nil {
		t.Fatal(err)
	}
	if sig, err := framework.BlockSignature(boundDev); err != nil || sig["TYPE"] != "ext4" {
		t.Fatalf("blkid after mkfs on %s: %v %v", boundDev, sig, err)
	}

	if withGate {
		// 3. The set is deleted: it stays, blocked by the bound PV,
		// while the unbound PV and its symlink go.
		if err := lvsClient.Delete(ctx, lvsName, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete LocalVolumeSet: %v", err)
		}
		ev := waitForOwnerEvent(ctx, t, s, "LocalVolumeSet", lvsName, "DeletionBlockedByBoundVolume")
		if !strings.Contains(ev.Message, boundPV.Name) {
			t.Errorf("the blocking event must name PV %s: %q", boundPV.Name, ev.Message)
		}
		cond := waitForDeletionBlocked(ctx, t, s, lvsClient)
		if cond.Reason != "BoundVolumes" || !strings.Contains(cond.Message, boundPV.Name) || !strings.Contains(cond.Message, "claim default/data") {
			t.Errorf("%s condition %+v: want reason BoundVolumes naming PV %s and claim default/data", local.ConditionDeletionBlocked, cond, boundPV.Name)
		}
		waitForPVGone(ctx, t, s, freePV)
		waitForNoPath(ctx, t, s, pvPath[freePV])
		got, err := lvsClient.Get(ctx, lvsName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the LocalVolumeSet must stay while its PV is bound: %v", err)
		}
		if got.GetDeletionTimestamp() == nil || !slices.Contains(got.GetFinalizers(), local.LocalVolumeProtectionFinalizer) {
			t.Fatalf("LocalVolumeSet: deletionTimestamp %v, finalizers %v; want being deleted and held by %s", got.GetDeletionTimestamp(), got.GetFinalizers(), local.LocalVolumeProtectionFinalizer)
		}
		if _, err := os.Lstat(pvPath[boundPV.Name]); err != nil {
			t.Errorf("the bound PV's symlink must stay: %v", err)
		}
	}

	// 4. The claim is deleted: the PV is Released, wiped (the agent is
	// killed as soon as it recorded wipe-started, and restarted) and
	// deleted.
	deleteClaim(ctx, t, s, metav1.NamespaceDefault, "data")
	phases, annotations, killedEarly := followWipe(ctx, t, s, agentProc, boundPV)
	t.Logf("bound PV %s: phases %v, wipe annotations seen %v, killed before wiped was written: %v", boundPV.Name, phases, annotations, killedEarly)
	if !slices.Contains(phases, string(corev1.VolumeReleased)) {
		t.Errorf("PV %s was never seen Released: %v", boundPV.Name, phases)
	}
	if !slices.Contains(annotations, agent.AnnotationWiped) {
		t.Errorf("PV %s was deleted without the %s annotation: %v", boundPV.Name, agent.AnnotationWiped, annotations)
	}
	if sig, err := framework.BlockSignature(boundDev); err != nil || len(sig) != 0 {
		t.Errorf("blkid on %s after the wipe: %v %v; want no signature", boundDev, sig, err)
	}

	if withGate {
		// 5. With the last PV gone, its symlink goes and the set with it.
		waitForNoPath(ctx, t, s, pvPath[boundPV.Name])
		waitFor(ctx, t, s, "LocalVolumeSet "+lvsName+" to be gone", func(ctx context.Context) (bool, error) {
			got, err := lvsClient.Get(ctx, lvsName, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			if err != nil {
				return false, err
			}
			return false, fmt.Errorf("finalizers %v", got.GetFinalizers())
		})
	} else {
		// Without the control plane: the agent offers the wiped disk
		// again (same name, new UID); delete the set, then the PVs as
		// the control plane would, and the agent removes the symlinks.
		if err := lvsClient.Delete(ctx, lvsName, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete LocalVolumeSet: %v", err)
		}
		waitFor(ctx, t, s, "LocalVolumeSet to be gone", func(ctx context.Context) (bool, error) {
			_, err := lvsClient.Get(ctx, lvsName, metav1.GetOptions{})
			return apierrors.IsNotFound(err), err
		})
		// The agent may still create a PV for the wiped disk until its
		// cache shows the set gone: delete until none is left.
		waitFor(ctx, t, s, "the set's PVs to be gone", func(ctx context.Context) (bool, error) {
			list, err := client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{LabelSelector: ownerSel})
			if err != nil {
				return false, err
			}
			var left []string
			for _, pv := range list.Items {
				left = append(left, pv.Name)
				if pv.DeletionTimestamp == nil {
					err := client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &pv.UID}})
					if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
						return false, err
					}
				}
			}
			return len(left) == 0, fmt.Errorf("left: %v", left)
		})
		for name := range pvDevice {
			waitForNoPath(ctx, t, s, pvPath[name])
		}
	}

	// 6. Nothing is left, and the agent never named another loop device.
	if pvs := listPVs(ctx, t, s); len(pvs) != 0 {
		var names []string
		for _, pv := range pvs {
			names = append(names, pv.Name)
		}
		t.Errorf("PVs left: %v", names)
	}
	if left := symlinksUnder(t, symlinkRoot); len(left) != 0 {
		t.Errorf("symlinks left under %s: %v", symlinkRoot, left)
	}
	if _, err := lvsClient.Get(ctx, lvsName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("LocalVolumeSet must be gone: %v", err)
	}
	logData, err := os.ReadFile(agentLog)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range loopPath.FindAllString(string(logData), -1) {
		named[m] = true
	}
	for dev := range named {
		if !slices.Contains(loops, dev) {
			t.Errorf("the agent's log names %s, which is not one of the test's loop devices %v", dev, loops)
		}
	}
	t.Logf("loop devices named in the agent's log: %v", sortedKeys(named))
}

// followWipe watches the released PV from the claim's deletion until it is
// deleted. As soon as it carries wipe-started it kills the agent (SIGKILL)
// and starts it again: the PV must still be wiped and deleted. It returns
// the phases and wipe annotations seen and whether the kill came before
// wiped was written.
func followWipe(ctx context.Context, t *testing.T, s *framework.Stack, agentProc *framework.Process, pv *corev1.PersistentVolume) (phases, annotations []string, killedEarly bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 2*waitTimeout)
	defer cancel()
	w, err := s.Client().CoreV1().PersistentVolumes().Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", pv.Name).String(),
		ResourceVersion: pv.ResourceVersion,
	})
	if err != nil {
		t.Fatalf("watch PV %s: %v", pv.Name, err)
	}
	defer w.Stop()
	killed := false
	for {
		select {
		case <-ctx.Done():
			t.Fatalf("PV %s was not wiped and deleted in time: phases %v, annotations %v", pv.Name, phases, annotations)
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch of PV %s ended: phases %v, annotations %v", pv.Name, phases, annotations)
			}
			got, isPV := ev.Object.(*corev1.PersistentVolume)
			if !isPV {
				t.Fatalf("watch of PV %s: %v", pv.Name, ev.Object)
			}
			if got.UID != pv.UID {
				continue
			}
			if p := string(got.Status.Phase); len(phases) == 0 || phases[len(phases)-1] != p {
				phases = append(phases, p)
			}
			for _, key := range []string{agent.AnnotationWipeStarted, agent.AnnotationWiped} {
				if _, ok := got.Annotations[key]; ok && !slices.Contains(annotations, key) {
					annotations = append(annotations, key)
				}
			}
			if !killed && slices.Contains(annotations, agent.AnnotationWipeStarted) {
				killed = true
				killedEarly = !slices.Contains(annotations, agent.AnnotationWiped)
				if err := agentProc.Kill(); err != nil {
					t.Fatalf("kill agent: %v", err)
				}
				if err := agentProc.Restart(ctx); err != nil {
					t.Fatalf("restart agent: %v", err)
				}
			}
			if ev.Type == watch.Deleted {
				if !killed {
					t.Errorf("PV %s was deleted without wipe-started ever being seen", pv.Name)
				}
				return phases, annotations, killedEarly
			}
		}
	}
}

// waitForOwnerEvent waits for an event of the reason about a LocalVolume or
// LocalVolumeSet in the default namespace.
func waitForOwnerEvent(ctx context.Context, t *testing.T, s *framework.Stack, kind, name, reason string) corev1.Event {
	t.Helper()
	return waitForEvent(ctx, t, s, kind, metav1.NamespaceDefault, name, "", reason)
}

// waitForDeletionBlocked waits until the LocalVolumeSet's status has the
// DeletionBlocked condition True, and returns it.
func waitForDeletionBlocked(ctx context.Context, t *testing.T, s *framework.Stack, lvsClient dynamic.ResourceInterface) metav1.Condition {
	t.Helper()
	var found metav1.Condition
	waitFor(ctx, t, s, "the "+local.ConditionDeletionBlocked+" condition of LocalVolumeSet "+lvsName, func(ctx context.Context) (bool, error) {
		got, err := lvsClient.Get(ctx, lvsName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		var status struct {
			Conditions []metav1.Condition `json:"conditions"`
		}
		if m, ok := got.Object["status"].(map[string]any); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &status); err != nil {
				return false, err
			}
		}
		c := meta.FindStatusCondition(status.Conditions, local.ConditionDeletionBlocked)
		if c == nil || c.Status != metav1.ConditionTrue {
			return false, fmt.Errorf("conditions %+v", status.Conditions)
		}
		found = *c
		return true, nil
	})
	return found
}

// symlinkTarget checks that path is a symlink under root and returns the
// device it resolves to.
func symlinkTarget(root, path string) (string, error) {
	if !strings.HasPrefix(path, root+string(filepath.Separator)) {
		return "", fmt.Errorf("path %s is not under the symlink root %s", path, root)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return "", fmt.Errorf("%s is not a symlink (%v)", path, fi.Mode())
	}
	return filepath.EvalSymlinks(path)
}

// waitForNoPath waits until nothing is left at path (the agent removed a
// symlink).
func waitForNoPath(ctx context.Context, t *testing.T, s *framework.Stack, path string) {
	t.Helper()
	waitFor(ctx, t, s, "symlink "+path+" to be removed", func(context.Context) (bool, error) {
		_, err := os.Lstat(path)
		if os.IsNotExist(err) {
			return true, nil
		}
		return false, err
	})
}

// symlinksUnder lists every symlink below root.
func symlinksUnder(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		t.Errorf("walk %s: %v", root, err)
	}
	return found
}

// checkAgentNotForbidden fails the test if the API server refused any
// request of the agent: its shipped RBAC must grant all it does.
func checkAgentNotForbidden(t *testing.T, s *framework.Stack, user string) {
	t.Helper()
	events, err := s.Cluster().AuditEvents()
	if err != nil {
		t.Errorf("read audit log: %v", err)
		return
	}
	for _, ev := range events {
		if ev.User.Username == user && strings.HasPrefix(ev.UserAgent, "local-volume-agent/") &&
			ev.ResponseStatus != nil && ev.ResponseStatus.Code == 403 {
			t.Errorf("the API server refused the agent: %s %s (403)", ev.Verb, ev.RequestURI)
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
