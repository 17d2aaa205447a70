//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// waitFor is Stack.WaitFor with the test's standard timeout, failing the
// test when the wait does.
func waitFor(ctx context.Context, t *testing.T, s *framework.Stack, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	if err := s.WaitFor(ctx, waitTimeout, what, cond); err != nil {
		t.Fatal(err)
	}
}

// getClaim returns a claim, failing the test if it cannot be read.
func getClaim(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string) *corev1.PersistentVolumeClaim {
	t.Helper()
	pvc, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get PVC %s/%s: %v", namespace, name, err)
	}
	return pvc
}

// waitForClaimBound waits until the PV binder has bound the claim and
// returns the claim and its PV.
func waitForClaimBound(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string) (*corev1.PersistentVolumeClaim, *corev1.PersistentVolume) {
	t.Helper()
	var pvc *corev1.PersistentVolumeClaim
	waitFor(ctx, t, s, fmt.Sprintf("PVC %s/%s to be Bound", namespace, name), func(ctx context.Context) (bool, error) {
		got, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pvc = got
		return got.Status.Phase == corev1.ClaimBound, fmt.Errorf("phase %q", got.Status.Phase)
	})
	pv, err := s.Client().CoreV1().PersistentVolumes().Get(ctx, pvc.Spec.VolumeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get PV %s of bound PVC %s/%s: %v", pvc.Spec.VolumeName, namespace, name, err)
	}
	return pvc, pv
}

// waitForClaimGone waits until a deleted claim has left the API.
func waitForClaimGone(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string) {
	t.Helper()
	waitFor(ctx, t, s, fmt.Sprintf("PVC %s/%s to be gone", namespace, name), func(ctx context.Context) (bool, error) {
		pvc, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		return false, fmt.Errorf("still there, finalizers %v", pvc.Finalizers)
	})
}

// waitForPVGone waits until the sidecar has deleted a PV object.
func waitForPVGone(ctx context.Context, t *testing.T, s *framework.Stack, name string) {
	t.Helper()
	waitFor(ctx, t, s, "PV "+name+" to be gone", func(ctx context.Context) (bool, error) {
		pv, err := s.Client().CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		return false, fmt.Errorf("phase %q, finalizers %v", pv.Status.Phase, pv.Finalizers)
	})
}

// listPVs returns every PV in the cluster.
func listPVs(ctx context.Context, t *testing.T, s *framework.Stack) []corev1.PersistentVolume {
	t.Helper()
	list, err := s.Client().CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list PVs: %v", err)
	}
	return list.Items
}

// driverVolumes returns the volumes the driver holds, failing the test if
// its state cannot be read.
func driverVolumes(t *testing.T, s *framework.Stack) []mockdriver.Volume {
	t.Helper()
	vols, err := s.DriverVolumes()
	if err != nil {
		t.Fatalf("read driver state: %v", err)
	}
	return vols
}

// waitForDriverVolumes waits until the driver holds exactly n volumes.
func waitForDriverVolumes(ctx context.Context, t *testing.T, s *framework.Stack, n int) []mockdriver.Volume {
	t.Helper()
	var vols []mockdriver.Volume
	waitFor(ctx, t, s, fmt.Sprintf("the driver to hold %d volume(s)", n), func(context.Context) (bool, error) {
		got, err := s.DriverVolumes()
		if err != nil {
			return false, err
		}
		vols = got
		return len(got) == n, fmt.Errorf("%d volume(s)", len(got))
	})
	return vols
}

// volumeByID finds a driver volume by its CSI volume id (the PV's handle).
func volumeByID(vols []mockdriver.Volume, id string) (mockdriver.Volume, bool) {
	for _, v := range vols {
		if v.ID == id {
			return v, true
		}
	}
	return mockdriver.Volume{}, false
}

// claimEvents lists the events about a claim, oldest first as the API
// returns them.
func claimEvents(ctx context.Context, s *framework.Stack, namespace, name string) ([]corev1.Event, error) {
	return objectEvents(ctx, s, "PersistentVolumeClaim", namespace, name)
}

// objectEvents lists the events about one object of kind; a cluster-scoped
// object's are in the default namespace.
func objectEvents(ctx context.Context, s *framework.Stack, kind, namespace, name string) ([]corev1.Event, error) {
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	sel := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name}.AsSelector().String()
	list, err := s.Client().CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// waitForClaimEvent waits for an event of the type and reason about a claim
// and returns it.
func waitForClaimEvent(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name, eventType, reason string) corev1.Event {
	t.Helper()
	return waitForEvent(ctx, t, s, "PersistentVolumeClaim", namespace, name, eventType, reason)
}

// waitForEvent waits for an event of the type ("" for any) and reason about
// one object of kind and returns it.
func waitForEvent(ctx context.Context, t *testing.T, s *framework.Stack, kind, namespace, name, eventType, reason string) corev1.Event {
	t.Helper()
	var found corev1.Event
	waitFor(ctx, t, s, fmt.Sprintf("a %s %s event on %s %s", eventType, reason, kind, klog.KRef(namespace, name)), func(ctx context.Context) (bool, error) {
		events, err := objectEvents(ctx, s, kind, namespace, name)
		if err != nil {
			return false, err
		}
		var seen []string
		for _, ev := range events {
			if (eventType == "" || ev.Type == eventType) && ev.Reason == reason {
				found = ev
				return true, nil
			}
			seen = append(seen, ev.Type+"/"+ev.Reason)
		}
		return false, fmt.Errorf("events so far: %v", seen)
	})
	return found
}

// driverCallsFailed counts the driver's log lines for calls of method that
// failed with the gRPC code, e.g. ("CreateVolume", "DeadlineExceeded"). The
// driver logs every CreateVolume and DeleteVolume outcome at its default -v.
func driverCallsFailed(t *testing.T, s *framework.Stack, method, code string) int {
	t.Helper()
	data, err := os.ReadFile(s.Driver().LogFile())
	if err != nil {
		t.Fatalf("read driver log: %v", err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, `"Call failed"`) && strings.Contains(line, `method="`+method+`"`) && strings.Contains(line, `code="`+code+`"`) {
			n++
		}
	}
	return n
}
