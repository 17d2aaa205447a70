//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// With --node-deployment every node's sidecar runs the recycle bin and sees
// every released PV of the driver, but only the node a volume was made on
// can delete it. A claim provisioned on node-1 of two is deleted, its class
// keeping volumes for 15s: the PV is kept, its deadline recorded once (one
// successful write of the sidecars, every key arriving in the same version
// of the PV, the deadline never rewritten); at the deadline the volume gets
// exactly one DeleteVolume, from node-1's sidecar through node-1's driver,
// none through node-2's; both sidecars keep running and still provision on
// their nodes afterwards.
func TestRecycleBinWithNodeDeployment(t *testing.T) {
	const retention = 15 * time.Second
	nodes := framework.NodeNames(2)
	nodeA, nodeB := nodes[0], nodes[1]
	ctx, s := startStack(t, framework.StackOptions{
		Nodes:   nodes,
		Driver:  framework.DriverOptions{Verbosity: framework.DriverRequestVerbosity},
		Sidecar: framework.SidecarOptions{ExtraArgs: slices.Clone(nodeDeploymentDelays)},
	})
	createStorageClass(ctx, t, s, "short", waitForFirstConsumer, withRetention(retention.String()))

	createClaim(ctx, t, s, "default", "data", "short", claimOnNode(nodeA))
	claim, pv := waitForClaimBound(ctx, t, s, "default", "data")
	handle := pv.Spec.CSI.VolumeHandle
	if got := nodeAffinityValues(pv); !slices.Equal(got, []string{nodeA}) {
		t.Fatalf("PV %s is pinned to %v, want [%s]", pv.Name, got, nodeA)
	}
	if !nodeHolds(t, s, nodeA, handle) {
		t.Fatalf("%s's driver does not hold volume %s", nodeA, handle)
	}
	history := watchPVs(ctx, t, s, pv.Name, pv.ResourceVersion)

	pv, deleting, until := deleteIntoTheBin(ctx, t, s, "default", "data", pv.Name, retention)
	if got, want := pv.Annotations[annRetainedFrom], fmt.Sprintf("default/data %s", claim.UID); got != want {
		t.Errorf("PV %s: %s=%q, want %q", pv.Name, annRetainedFrom, got, want)
	}
	if got := pv.Labels[labelRetained]; got != "true" {
		t.Errorf("PV %s: label %s=%q, want true", pv.Name, labelRetained, got)
	}
	// Kept: the backend still has it, and no driver was asked to delete it.
	if !nodeHolds(t, s, nodeA, handle) {
		t.Errorf("%s's driver no longer holds the retained volume %s", nodeA, handle)
	}
	for _, node := range nodes {
		if n := len(deleteVolumeRequestsIn(t, s.NodeDriver(node).LogFile(), handle)); n != 0 {
			t.Errorf("%s's driver received %d DeleteVolume for the retained volume %s, %s before its deadline", node, n, handle, time.Until(until).Round(time.Millisecond))
		}
	}

	// Expiry: the PV and the volume go, through node A.
	waitForPVGone(ctx, t, s, pv.Name)
	waitFor(ctx, t, s, nodeA+"'s driver to delete volume "+handle, func(context.Context) (bool, error) {
		return !nodeHolds(t, s, nodeA, handle), fmt.Errorf("still held")
	})
	requests := deleteVolumeRequestsIn(t, s.NodeDriver(nodeA).LogFile(), handle)
	if len(requests) != 1 {
		t.Errorf("%s's driver received %d DeleteVolume for %s at %v, want exactly 1", nodeA, len(requests), handle, requests)
	}
	if len(requests) > 0 {
		lateness := requests[0].Sub(until)
		t.Logf("expiry lateness: %s (DeleteVolume at %s, retained until %s)", lateness.Round(time.Millisecond), requests[0].UTC().Format(time.RFC3339Nano), until.UTC().Format(time.RFC3339))
		if lateness < 0 {
			t.Errorf("DeleteVolume came %s before the deadline", -lateness)
		}
	}
	if st, err := s.NodeDriverState(nodeA); err != nil {
		t.Fatal(err)
	} else if n := countDeletions(st, handle); n != 1 {
		t.Errorf("%s's driver recorded %d deletions of %s, want 1", nodeA, n, handle)
	}
	if c := nodeDriverCalls(t, s, nodeB); c.Requests["DeleteVolume"] != 0 || c.Requests["CreateVolume"] != 0 {
		t.Errorf("%s's driver received %d DeleteVolume and %d CreateVolume; the volume was %s's", nodeB, c.Requests["DeleteVolume"], c.Requests["CreateVolume"], nodeA)
	}

	// Recorded once. The watch has seen the PV until its deletion: no
	// version carries part of the record, the record arrived in one
	// change, and its deadline never changed.
	history.waitForVersion(ctx, t, s, pv.Name, "its deletion", func(p *corev1.PersistentVolume) bool { return p.DeletionTimestamp != nil })
	arrivals, had := 0, false
	for _, v := range history.of(pv.Name) {
		keys := binKeys(v)
		if len(keys) != 0 && len(keys) != 3 {
			t.Errorf("PV %s version %s carries %v only: the deadline, origin and label must be written together", pv.Name, v.ResourceVersion, keys)
		}
		if len(keys) > 0 && !had {
			arrivals++
		}
		had = len(keys) > 0
		if got, ok := v.Annotations[annRetainedUntil]; ok && got != pv.Annotations[annRetainedUntil] {
			t.Errorf("PV %s version %s: %s=%q, first recorded %q: the deadline was written again", pv.Name, v.ResourceVersion, annRetainedUntil, got, pv.Annotations[annRetainedUntil])
		}
	}
	if arrivals != 1 {
		t.Errorf("the bin's keys arrived on PV %s %d times, want once", pv.Name, arrivals)
	}
	// Both sidecars authenticate as the same ServiceAccount: between the
	// claim's deletion and the deadline their writes to the PV are the one
	// record (a write that lost the race to it fails with a conflict and
	// changes nothing).
	var succeeded, failed []string
	events, err := sidecarAuditEvents(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		ref := ev.ObjectRef
		if ref == nil || ref.Resource != "persistentvolumes" || ref.Name != pv.Name || ev.RequestReceived.Before(deleting) || !ev.RequestReceived.Before(until) {
			continue
		}
		if ev.Verb == "get" || ev.Verb == "list" || ev.Verb == "watch" {
			continue
		}
		what := strings.TrimSuffix(ev.Verb+" "+ref.Subresource, " ")
		if ev.ResponseStatus != nil && ev.ResponseStatus.Code >= 300 {
			failed = append(failed, fmt.Sprintf("%s (%d)", what, ev.ResponseStatus.Code))
			continue
		}
		succeeded = append(succeeded, what)
	}
	t.Logf("sidecar writes to PV %s before its deadline: %v, refused: %v", pv.Name, succeeded, failed)
	if !slices.Equal(succeeded, []string{"patch"}) {
		t.Errorf("the sidecars wrote PV %s %v between the claim's deletion and the deadline, want one patch", pv.Name, succeeded)
	}
	recordedBy := map[string]int{}
	for _, node := range nodes {
		if n := countLogLines(t, s.NodeSidecar(node), `"Volume retained"`, pv.Name); n > 0 {
			recordedBy[node] = n
		}
	}
	if len(recordedBy) != 1 || recordedBy[nodeA]+recordedBy[nodeB] != 1 {
		t.Errorf("sidecars that logged recording the retention of %s: %v, want one, once", pv.Name, recordedBy)
	}
	if reasons := pvEventReasons(ctx, t, s, pv.Name); countOf(reasons, reasonVolumeRetained) != 1 {
		t.Errorf("PV %s has events %v, want one %s", pv.Name, reasons, reasonVolumeRetained)
	}
	// Only the node that deletes the volume keeps and expires it: the
	// other says nothing about it.
	binEvents := binEventsBySidecar(t, s, pv.Name)
	if want := []string{reasonVolumeRetained, reasonVolumeRetentionExpired}; !slices.Equal(binEvents[nodeA], want) || len(binEvents[nodeB]) != 0 {
		t.Errorf("the bin's events about %s by sidecar: %v; want %v from %s alone", pv.Name, binEvents, want, nodeA)
	}

	// Both sidecars are healthy: running, and each still provisions on its
	// node.
	for _, node := range nodes {
		p := s.NodeSidecar(node)
		if exited, err := p.Exited(); exited {
			t.Fatalf("%s's sidecar exited: %v", node, err)
		}
		if n := countLogLines(t, p, "panic"); n != 0 {
			t.Errorf("%s's sidecar logged %d lines about a panic", node, n)
		}
		createClaim(ctx, t, s, "default", "after-"+node, "short", claimOnNode(node))
	}
	for _, node := range nodes {
		if _, pv := waitForClaimBound(ctx, t, s, "default", "after-"+node); !slices.Equal(nodeAffinityValues(pv), []string{node}) {
			t.Errorf("claim after-%s got PV %s pinned to %v", node, pv.Name, nodeAffinityValues(pv))
		}
	}
	if err := s.CheckAlive(); err != nil {
		t.Error(err)
	}
}

// nodeHolds reports whether a node's driver holds the volume of a handle.
func nodeHolds(t *testing.T, s *framework.Stack, node, handle string) bool {
	t.Helper()
	st, err := s.NodeDriverState(node)
	if err != nil {
		t.Fatalf("read the state of %s's driver: %v", node, err)
	}
	_, ok := volumeByID(st.Volumes, handle)
	return ok
}

func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// binEventsBySidecar lists, per node, the reasons of the bin's events
// about a PV that node's sidecar logged sending.
func binEventsBySidecar(t *testing.T, s *framework.Stack, pv string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, node := range s.Nodes() {
		for _, reason := range []string{reasonVolumeRetained, reasonVolumeRetentionExpired, "VolumePurged"} {
			for range countLogLines(t, s.NodeSidecar(node), `"Event occurred"`, `object="`+pv+`"`, `reason="`+reason+`"`) {
				out[node] = append(out[node], reason)
			}
		}
	}
	return out
}
