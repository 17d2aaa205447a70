//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// logPVAlreadyExists is the provisioning library's line (at -v=4) for a
// claim it was asked to provision whose PV it already has.
const logPVAlreadyExists = "PersistentVolume already exists, skipping"

// kubernetes-csi/external-provisioner#1469: a retry of a claim acting on a
// stale copy of it runs CreateVolume again after the claim's volume was
// already deleted through its PV, and makes the volume a second time.
//
// The sidecar's claim watch goes through a proxy that holds its events
// back, as a lagging watch does, from the moment the first CreateVolume is
// received. Meanwhile the claim is updated while it waits for its volume,
// bound, and deleted. Only then is the held update (the claim still
// waiting) let through, which has the library sync it:
//   - off, nothing keeps the deleted claim: its PV was released and
//     deleted with its volume, the library's PV cache no longer has it, and
//     the stale sync calls CreateVolume again and makes a second volume
//     under the same name (whose new PV is later released and deleted: the
//     leak of the report needs the PV create to also meet the old PV);
//   - on, the provisioning-protection finalizer is released only by a write
//     pinned to the claim's latest version, which a sidecar with a stale
//     view cannot make; so the claim, and with it its PV, stays until the
//     view is current, and the stale sync finds the PV and stops.
func TestReportedLeak1469StaleRetryAfterTheVolumeWasDeletedThroughItsPV(t *testing.T) {
	var claims *framework.WatchHoldProxy
	leakReproducer{
		gate:             "ProvisioningProtection",
		twiceWithoutGate: true,
		driver:           framework.DriverOptions{CreateDelay: 3 * time.Second},
		sidecarEnv: func(ctx context.Context, t *testing.T, s *framework.Stack) []string {
			p, err := s.Cluster().StartWatchHoldProxy("persistentvolumeclaims")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Close)
			claims = p
			host := strings.TrimPrefix(p.URL(), "https://")
			return []string{"KUBECONFIG=" + kubeconfigVia(t, s, s.RBAC().Kubeconfig, host, "held-claims.kubeconfig")}
		},
		run: func(ctx context.Context, t *testing.T, s *framework.Stack) {
			pvc := createClaim(ctx, t, s, "default", "stale", "mock")
			volume := "pvc-" + string(pvc.UID)
			waitForCreateVolumeReceived(ctx, t, s, volume)
			claims.Hold()
			// The copy the stale sync will act on: still waiting for its
			// volume, and newer than what the sidecar saw.
			annotateClaim(ctx, t, s, "default", "stale", "e2e.csi-protect.io/touched", "while-provisioning")
			waitForClaimBound(ctx, t, s, "default", "stale")
			deleteClaim(ctx, t, s, "default", "stale")
			waitFor(ctx, t, s, "the claim's PV and volume to be deleted, or the claim to be kept by provisioning protection", func(ctx context.Context) (bool, error) {
				return volumeGoneOrClaimKept(ctx, s, pvc.UID, volume)
			})
			skipsBefore := countLogLines(t, s.Sidecar(), logPVAlreadyExists, volume)
			n := claims.Deliver(func(ev framework.WatchEvent) bool {
				var c corev1.PersistentVolumeClaim
				return json.Unmarshal(ev.Object, &c) == nil && c.Spec.VolumeName == "" && c.DeletionTimestamp == nil
			})
			t.Logf("let %d held claim event(s) through, %d still held", n, claims.Held())
			waitFor(ctx, t, s, "the stale sync to call CreateVolume again or to find the PV", func(context.Context) (bool, error) {
				l, err := readCreateVolumeLog(s)
				if err != nil {
					return false, err
				}
				again := l.received[volume] > 1
				skipped := countLogLines(t, s.Sidecar(), logPVAlreadyExists, volume) > skipsBefore
				if again || skipped {
					t.Logf("the stale sync called CreateVolume again: %v; found the PV: %v", again, skipped)
				}
				return again || skipped, fmt.Errorf("%d CreateVolume call(s)", l.received[volume])
			})
			claims.Release()
		},
	}.test(t)
}

// volumeGoneOrClaimKept tells whether the deleted claim's volume was deleted
// through its PV (both gone), or provisioning protection keeps the claim,
// and with it the PV.
func volumeGoneOrClaimKept(ctx context.Context, s *framework.Stack, uid types.UID, volume string) (bool, error) {
	pvc, err := s.Client().CoreV1().PersistentVolumeClaims("default").Get(ctx, "stale", metav1.GetOptions{})
	switch {
	case err == nil && pvc.UID == uid && pvc.DeletionTimestamp != nil && hasFinalizer(pvc, provisioningProtection):
		return true, nil
	case err != nil && !apierrors.IsNotFound(err):
		return false, err
	}
	_, err = s.Client().CoreV1().PersistentVolumes().Get(ctx, volume, metav1.GetOptions{})
	if err == nil {
		return false, fmt.Errorf("PV %s still there", volume)
	}
	if !apierrors.IsNotFound(err) {
		return false, err
	}
	st, err := s.DriverState()
	if err != nil {
		return false, err
	}
	for _, v := range st.Volumes {
		if v.Name == volume {
			return false, fmt.Errorf("PV gone, volume %s still in the backend", volume)
		}
	}
	return true, nil
}

// annotateClaim sets an annotation on a claim, an update a user or another
// controller could make at any time.
func annotateClaim(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name, key, value string) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, key, value)
	if _, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("annotate PVC %s/%s: %v", namespace, name, err)
	}
}

// countLogLines counts the lines of a process's log that contain every
// part.
func countLogLines(t *testing.T, p *framework.Process, parts ...string) int {
	t.Helper()
	data, err := os.ReadFile(p.LogFile())
	if err != nil {
		t.Fatalf("read log of %s: %v", p.Name(), err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		all := true
		for _, part := range parts {
			all = all && strings.Contains(line, part)
		}
		if all {
			n++
		}
	}
	return n
}
