//go:build e2e

package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Log lines (at -v=4, the framework's default) of a protection controller
// that synced an object and kept holding it.
const (
	logKeepingPV    = "Keeping PV: a claim is bound to it"
	logKeepingClaim = "Claim is in use, keeping its finalizer"
)

// nudgeAnnotation is an annotation no controller reads: writing it makes
// the informers deliver an update, and so the controllers sync the object.
const nudgeAnnotation = "e2e.csi-protect.io/nudge"

// keptAfterALook makes the sidecar's controller look at an object again
// and waits until its log says it kept holding it: a "stays held"
// assertion made after that is made after the controller decided, not
// after some time in which it may not have looked at all. subject is how
// the log names the object, e.g. `PV="pvc-…"` or `PVC="ns/name"`.
func keptAfterALook(ctx context.Context, t *testing.T, s *framework.Stack, message, subject string, nudge func()) {
	t.Helper()
	count := func() int {
		data, err := os.ReadFile(s.Sidecar().LogFile())
		if err != nil {
			return 0
		}
		n := 0
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, `"`+message+`"`) && strings.Contains(line, subject) {
				n++
			}
		}
		return n
	}
	before := count()
	nudge()
	waitFor(ctx, t, s, "the controller to look at "+subject+" again and keep it", func(context.Context) (bool, error) {
		return count() > before, nil
	})
}

// nudgeClaim and nudgePV write the nudge annotation with a merge patch.
func nudgeClaim(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name string) func() {
	return func() {
		t.Helper()
		if _, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, name, types.MergePatchType, nudgePatch(), metav1.PatchOptions{}); err != nil {
			t.Fatalf("nudge claim %s/%s: %v", namespace, name, err)
		}
	}
}

func nudgePV(ctx context.Context, t *testing.T, s *framework.Stack, name string) func() {
	return func() {
		t.Helper()
		if _, err := s.Client().CoreV1().PersistentVolumes().Patch(ctx, name, types.MergePatchType, nudgePatch(), metav1.PatchOptions{}); err != nil {
			t.Fatalf("nudge PV %s: %v", name, err)
		}
	}
}

func nudgePatch() []byte {
	return []byte(`{"metadata":{"annotations":{"` + nudgeAnnotation + `":"` + time.Now().Format(time.RFC3339Nano) + `"}}}`)
}
