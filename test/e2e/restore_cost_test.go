//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// restoreCostClaims is how many empty claims and restores are compared.
const restoreCostClaims = 5

// A restore costs the sidecar a few API requests more than an empty volume:
// the snapshot and its content are read once, and the snapshot's
// source-protection finalizer is added and removed. Counted from the audit
// log, per volume, by the objects each request names; the figures are
// logged.
func TestRestoreCostInAPIRequests(t *testing.T) {
	ctx, s, _, _ := startRestoreStack(t, framework.StackOptions{})
	owner := map[string]string{} // object name -> "empty" or "restore"
	for i := range restoreCostClaims {
		for _, kind := range []string{"empty", "restore"} {
			name := fmt.Sprintf("%s-%d", kind, i)
			var mutate []func(*corev1.PersistentVolumeClaim)
			if kind == "restore" {
				mutate = append(mutate, restoredFrom("golden-snap"))
			}
			pvc := createClaim(ctx, t, s, "default", name, "mock", mutate...)
			owner[name] = kind
			owner["pvc-"+string(pvc.UID)] = kind
		}
	}
	for name, kind := range owner {
		if strings.HasPrefix(name, kind) {
			waitForClaimBound(ctx, t, s, "default", name)
		}
	}
	// Every finalizer the sidecar put on is gone again: its writes are done.
	for name, kind := range owner {
		if strings.HasPrefix(name, kind) {
			waitForNoSidecarFinalizer(ctx, t, s, name)
		}
	}
	waitForSnapshotFinalizer(ctx, t, s, "golden-snap", false)

	events, err := sidecarAuditEvents(s)
	if err != nil {
		t.Fatal(err)
	}
	perKind := map[string]map[string]int{"empty": {}, "restore": {}}
	for _, ev := range events {
		if ev.ObjectRef == nil || ev.ObjectRef.Name == "" {
			continue // lists and watches: shared by every claim
		}
		name, _, _ := strings.Cut(ev.ObjectRef.Name, ".") // events are <object>.<suffix>
		kind, ok := owner[name]
		if !ok && (ev.ObjectRef.Resource == "volumesnapshots" || ev.ObjectRef.Resource == "volumesnapshotcontents") {
			kind, ok = "restore", true
		}
		if !ok {
			continue
		}
		perKind[kind][ev.Verb+" "+ev.ObjectRef.Resource]++
	}
	total := func(kind string) float64 {
		n := 0
		for _, c := range perKind[kind] {
			n += c
		}
		return float64(n) / restoreCostClaims
	}
	for _, kind := range []string{"empty", "restore"} {
		var parts []string
		for k, c := range perKind[kind] {
			parts = append(parts, fmt.Sprintf("%s %.1f", k, float64(c)/restoreCostClaims))
		}
		sort.Strings(parts)
		t.Logf("%s volume: %.1f sidecar requests each (%s)", kind, total(kind), strings.Join(parts, ", "))
	}
	if extra := total("restore") - total("empty"); extra > 5 {
		t.Errorf("a restore costs %.1f requests more than an empty volume, want at most 5 (snapshot and content read, finalizer added and removed)", extra)
	}
}

// waitForNoSidecarFinalizer waits until the claim carries no finalizer of
// provisioning protection.
func waitForNoSidecarFinalizer(ctx context.Context, t *testing.T, s *framework.Stack, name string) {
	t.Helper()
	waitFor(ctx, t, s, "the provisioning-protection finalizer to leave "+name, func(ctx context.Context) (bool, error) {
		pvc := getClaim(ctx, t, s, "default", name)
		return !hasFinalizer(pvc, provisioningProtection), fmt.Errorf("finalizers %v", pvc.Finalizers)
	})
}
