//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// With --volume-retention, deleting a claim keeps its volume: the PV
// stays Released with the deadline, the claim it came from and the label,
// all written in one patch, and is listed by the label; the backend still
// has the volume, no DeleteVolume was made, and a VolumeRetained event
// names the deadline.
func TestRecycleBinKeepsTheVolumeOfADeletedClaim(t *testing.T) {
	ctx, s := startRecycleBinStack(t, "--volume-retention=1h")
	createStorageClass(ctx, t, s, "mock")
	createClaim(ctx, t, s, "default", "data", "mock")
	claim, pv := waitForClaimBound(ctx, t, s, "default", "data")
	history := watchPVs(ctx, t, s, pv.Name, pv.ResourceVersion)

	pv, deleting, _ := deleteIntoTheBin(ctx, t, s, "default", "data", pv.Name, time.Hour)
	if got, want := pv.Annotations[annRetainedFrom], fmt.Sprintf("default/data %s", claim.UID); got != want {
		t.Errorf("PV %s: %s=%q, want %q", pv.Name, annRetainedFrom, got, want)
	}
	if got := pv.Labels[labelRetained]; got != "true" {
		t.Errorf("PV %s: label %s=%q, want true", pv.Name, labelRetained, got)
	}
	if pv.Status.Phase != corev1.VolumeReleased || pv.DeletionTimestamp != nil {
		t.Errorf("PV %s is %s (deletion timestamp %v), want Released and not being deleted", pv.Name, pv.Status.Phase, pv.DeletionTimestamp)
	}
	if ref := pv.Spec.ClaimRef; ref == nil || ref.UID != claim.UID {
		t.Errorf("PV %s: claimRef %+v, want the deleted claim's (uid %s), as the release left it", pv.Name, ref, claim.UID)
	}

	listed, err := s.Client().CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{LabelSelector: labelRetained + "=true"})
	if err != nil {
		t.Fatal(err)
	}
	if len(listed.Items) != 1 || listed.Items[0].Name != pv.Name {
		var names []string
		for _, p := range listed.Items {
			names = append(names, p.Name)
		}
		t.Errorf("PVs listed by %s=true: %v, want [%s]", labelRetained, names, pv.Name)
	}

	ev := waitForPVEvent(ctx, t, s, pv.Name, corev1.EventTypeNormal, reasonVolumeRetained)
	if !strings.Contains(ev.Message, pv.Annotations[annRetainedUntil]) {
		t.Errorf("%s event %q does not name the deadline %s", reasonVolumeRetained, ev.Message, pv.Annotations[annRetainedUntil])
	}

	if _, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle); !ok {
		t.Errorf("the driver no longer holds the retained volume %s", pv.Spec.CSI.VolumeHandle)
	}
	if n := len(deleteVolumeRequests(t, s, pv.Spec.CSI.VolumeHandle)); n != 0 {
		t.Errorf("the driver received %d DeleteVolume for the retained volume", n)
	}

	// One write: no version of the PV has part of the record, and the
	// sidecar wrote the PV once since the claim's deletion.
	if writes := sidecarPVWrites(t, s, pv.Name, deleting); !slices.Equal(writes, []string{"patch"}) {
		t.Errorf("the sidecar wrote PV %s %v since the claim's deletion, want one patch", pv.Name, writes)
	}
	history.waitForVersion(ctx, t, s, pv.Name, "the deadline", func(p *corev1.PersistentVolume) bool { return len(binKeys(p)) > 0 })
	for _, v := range history.of(pv.Name) {
		if keys := binKeys(v); len(keys) != 0 && len(keys) != 3 {
			t.Errorf("PV %s version %s carries %v only: the deadline, origin and label must be written together", pv.Name, v.ResourceVersion, keys)
		}
	}
}

// A retained volume is given back on request to a new claim in another
// namespace: the PV's claimRef names the new claim, the bin's keys and the
// request go in the same write, kube-controller-manager binds the two, and
// the claim gets the very volume with its data.
func TestRecycleBinRestoresToAClaimInAnotherNamespace(t *testing.T) {
	ctx, s := startRecycleBinStack(t, "--volume-retention=1h")
	createStorageClass(ctx, t, s, "mock")
	r := provisionAndRetain(ctx, t, s, "default", "data", "mock")
	history := watchPVs(ctx, t, s, r.pv.Name, r.pv.ResourceVersion)

	createNamespace(ctx, t, s, "elsewhere")
	createClaim(ctx, t, s, "elsewhere", "back", "mock", forVolume(r.pv.Name))
	annotatePV(ctx, t, s, r.pv.Name, annRestoreTo, "elsewhere/back")

	back, pv := waitForClaimBound(ctx, t, s, "elsewhere", "back")
	if pv.Name != r.pv.Name || pv.Spec.CSI.VolumeHandle != r.pv.Spec.CSI.VolumeHandle {
		t.Fatalf("claim bound to PV %s (handle %s), want the retained %s (handle %s)", pv.Name, pv.Spec.CSI.VolumeHandle, r.pv.Name, r.pv.Spec.CSI.VolumeHandle)
	}
	if ref := pv.Spec.ClaimRef; ref == nil || ref.Namespace != "elsewhere" || ref.Name != "back" || ref.UID != back.UID {
		t.Errorf("PV claimRef %+v, want elsewhere/back uid %s", ref, back.UID)
	}
	if keys := binKeys(pv); len(keys) != 0 {
		t.Errorf("the restored PV still carries %v", keys)
	}
	if pv.Status.Phase != corev1.VolumeBound {
		t.Errorf("restored PV is %s, want Bound", pv.Status.Phase)
	}

	vol, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle)
	if !ok {
		t.Fatalf("the driver no longer holds volume %s", pv.Spec.CSI.VolumeHandle)
	}
	if vol.DataID == "" || vol.DataID != r.backend.DataID {
		t.Errorf("the restored volume holds data %q, the deleted claim's volume held %q", vol.DataID, r.backend.DataID)
	}
	if n := len(deleteVolumeRequests(t, s, pv.Spec.CSI.VolumeHandle)); n != 0 {
		t.Errorf("the driver received %d DeleteVolume for the restored volume", n)
	}

	waitForPVEvent(ctx, t, s, pv.Name, corev1.EventTypeNormal, reasonVolumeRestored)
	waitForClaimEvent(ctx, t, s, "elsewhere", "back", corev1.EventTypeNormal, reasonVolumeRestored)

	// One write: the claimRef moved exactly when the bin's keys went.
	history.waitForVersion(ctx, t, s, pv.Name, "the claimRef to elsewhere/back", func(p *corev1.PersistentVolume) bool {
		return p.Spec.ClaimRef != nil && p.Spec.ClaimRef.Name == "back"
	})
	for _, v := range history.of(pv.Name) {
		moved := v.Spec.ClaimRef != nil && v.Spec.ClaimRef.Namespace == "elsewhere" && v.Spec.ClaimRef.Name == "back"
		if keys := binKeys(v); moved == (len(keys) > 0) {
			t.Errorf("PV version %s: claimRef %v with bin keys %v; the claimRef and the keys must change in one write", v.ResourceVersion, v.Spec.ClaimRef, keys)
		}
	}
}

// At the deadline the volume is deleted through the normal path, exactly
// once, even when the leader that recorded the deadline is killed just
// before it and the other replica takes over: the deadline lives on the PV.
func TestRecycleBinExpiryAcrossALeaderChange(t *testing.T) {
	const retention = 20 * time.Second
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{Verbosity: framework.DriverRequestVerbosity},
		Sidecar: framework.SidecarOptions{
			Replicas:       2,
			LeaderElection: &framework.LeaderElectionOptions{},
		},
	})
	identities, leader, standby := electedLeaderAndStandby(ctx, t, s)
	createStorageClass(ctx, t, s, "short", withRetention(retention.String()))
	r := provisionAndRetain(ctx, t, s, "default", "data", "short")
	handle := r.pv.Spec.CSI.VolumeHandle
	if earliest := r.deleting.Add(retention).Add(-time.Second); r.until.Before(earliest) {
		t.Errorf("retained until %s, before the claim's deletion plus %s (%s)", r.until, retention, earliest)
	}
	if r.until.After(time.Now().Add(retention).Add(time.Second)) {
		t.Errorf("retained until %s, more than %s from now", r.until, retention)
	}
	if !logHas(t, leader, r.pv.Name) || len(deleteVolumeRequests(t, s, handle)) != 0 {
		t.Fatalf("the leader %s did not handle %s, or the volume is already being deleted", leader.Name(), r.pv.Name)
	}

	// Just before the deadline the leader crashes.
	sleepUntil(r.until.Add(-2 * time.Second))
	if _, held := volumeByID(driverVolumes(t, s), handle); !held || len(deleteVolumeRequests(t, s, handle)) != 0 {
		t.Fatalf("volume %s is being deleted %s before its deadline", handle, time.Until(r.until).Round(time.Millisecond))
	}
	killed := time.Now()
	if err := leader.Kill(); err != nil {
		t.Fatalf("kill the leader: %v", err)
	}
	if holder := waitForLeaseHolder(ctx, t, s, identities, leader.Name()); holder != standby {
		t.Fatalf("the Lease went to %s, want the standby %s", holder.Name(), standby.Name())
	}

	waitForPVGone(ctx, t, s, r.pv.Name)
	waitForBackendVolumeGone(ctx, t, s, handle)
	waitForPVEvent(ctx, t, s, r.pv.Name, corev1.EventTypeNormal, reasonVolumeRetentionExpired)

	requests := deleteVolumeRequests(t, s, handle)
	if len(requests) != 1 {
		t.Fatalf("the driver received %d DeleteVolume for %s at %v, want exactly 1", len(requests), handle, requests)
	}
	lateness := requests[0].Sub(r.until)
	t.Logf("expiry lateness: %s (DeleteVolume at %s, retained until %s, leader killed %s before the deadline, lease duration 6s)",
		lateness.Round(time.Millisecond), requests[0].UTC().Format(time.RFC3339Nano), r.until.UTC().Format(time.RFC3339), r.until.Sub(killed).Round(time.Millisecond))
	if lateness < 0 {
		t.Errorf("DeleteVolume came %s before the deadline", -lateness)
	}
	if requests[0].Before(killed) {
		t.Errorf("DeleteVolume at %s came from the killed leader (killed at %s)", requests[0], killed)
	}
	if st, err := s.DriverState(); err != nil {
		t.Fatal(err)
	} else if n := countDeletions(st, handle); n != 1 {
		t.Errorf("the driver recorded %d deletions of %s, want 1", n, handle)
	}
}

func countDeletions(st *framework.DriverState, handle string) int {
	n := 0
	for _, d := range st.Deletions {
		if d.VolumeID == handle {
			n++
		}
	}
	return n
}

// A retained volume is deleted at once, long before its deadline, when
// a user asks for it with the purge annotation or deletes the PV object.
func TestRecycleBinPurge(t *testing.T) {
	ctx, s := startRecycleBinStack(t, "--volume-retention=1h")
	createStorageClass(ctx, t, s, "mock")
	byAnnotation := provisionAndRetain(ctx, t, s, "default", "by-annotation", "mock")
	byDeletion := provisionAndRetain(ctx, t, s, "default", "by-deletion", "mock")

	purges := []struct {
		how   string
		r     retainedVolume
		purge func(name string)
	}{
		{"annotation " + annPurge + "=true", byAnnotation, func(name string) { annotatePV(ctx, t, s, name, annPurge, "true") }},
		{"deleting the PV", byDeletion, func(name string) {
			if err := s.Client().CoreV1().PersistentVolumes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete PV %s: %v", name, err)
			}
		}},
	}
	for _, p := range purges {
		handle := p.r.pv.Spec.CSI.VolumeHandle
		start := time.Now()
		p.purge(p.r.pv.Name)
		waitForPVGone(ctx, t, s, p.r.pv.Name)
		waitForBackendVolumeGone(ctx, t, s, handle)
		took := time.Since(start)
		t.Logf("purge by %s: volume and PV gone %s later (deadline was %s away)", p.how, took.Round(time.Millisecond), time.Until(p.r.until).Round(time.Second))
		if n := len(deleteVolumeRequests(t, s, handle)); n != 1 {
			t.Errorf("purge by %s: the driver received %d DeleteVolume for %s, want 1", p.how, n, handle)
		}
	}
	if vols := driverVolumes(t, s); len(vols) != 0 {
		t.Errorf("the driver still holds %d volumes after both purges", len(vols))
	}
}

// A restore request for a claim that does not fit the volume (it asks
// for more than the volume has) is refused with a Warning event on both;
// the PV keeps its claimRef and the bin's record, and the claim stays
// Pending.
func TestRecycleBinRefusesAClaimThatDoesNotFit(t *testing.T) {
	ctx, s := startRecycleBinStack(t, "--volume-retention=1h")
	createStorageClass(ctx, t, s, "mock")
	r := provisionAndRetain(ctx, t, s, "default", "data", "mock")

	createClaim(ctx, t, s, "default", "bigger", "mock", forVolume(r.pv.Name), func(pvc *corev1.PersistentVolumeClaim) {
		pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	})
	requested := time.Now()
	annotatePV(ctx, t, s, r.pv.Name, annRestoreTo, "default/bigger")

	pvEvent := waitForPVEvent(ctx, t, s, r.pv.Name, corev1.EventTypeWarning, reasonVolumeRestoreRefused)
	claimEvent := waitForClaimEvent(ctx, t, s, "default", "bigger", corev1.EventTypeWarning, reasonVolumeRestoreRefused)
	for _, ev := range []corev1.Event{pvEvent, claimEvent} {
		if !strings.Contains(ev.Message, "2Gi") {
			t.Errorf("%s event on %s %s says %q, which does not name the size asked for (2Gi)", ev.Reason, ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Message)
		}
	}

	pv, err := s.Client().CoreV1().PersistentVolumes().Get(ctx, r.pv.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the PV of a refused restore is gone: %v", err)
	}
	if ref := pv.Spec.ClaimRef; ref == nil || ref.UID != r.claim.UID || ref.Name != "data" {
		t.Errorf("PV claimRef %+v, want the deleted claim's (default/data uid %s) unchanged", ref, r.claim.UID)
	}
	for _, k := range []string{annRetainedUntil, annRetainedFrom} {
		if got, want := pv.Annotations[k], r.pv.Annotations[k]; got != want {
			t.Errorf("PV %s: %s=%q, was %q", pv.Name, k, got, want)
		}
	}
	if got := pv.Labels[labelRetained]; got != "true" {
		t.Errorf("PV %s: label %s=%q, want true still", pv.Name, labelRetained, got)
	}
	if pv.Status.Phase != corev1.VolumeReleased {
		t.Errorf("PV %s is %s, want Released still", pv.Name, pv.Status.Phase)
	}
	if writes := sidecarPVWrites(t, s, pv.Name, requested); len(writes) != 0 {
		t.Errorf("the sidecar wrote PV %s %v after the refused request, want no write", pv.Name, writes)
	}
	if claim := getClaim(ctx, t, s, "default", "bigger"); claim.Status.Phase != corev1.ClaimPending {
		t.Errorf("the refused claim is %s, want Pending", claim.Status.Phase)
	}
	if _, ok := volumeByID(driverVolumes(t, s), r.pv.Spec.CSI.VolumeHandle); !ok {
		t.Errorf("the driver no longer holds volume %s after a refused restore", r.pv.Spec.CSI.VolumeHandle)
	}
}

// recycleBinCostClaims is how many claims per class the cost test deletes.
const recycleBinCostClaims = 3

// With retention off the sidecar deletes volumes as it always did: each
// deleted claim's volume gets one DeleteVolume and its PV goes, no PV ever
// carries a key of the bin, and the sidecar's requests about each PV, from
// the claim's deletion on, are the library's own: the PV's DELETE and the
// PATCH that removes its finalizer, nothing else. A class that turns
// retention on (here a short one, so that the volumes expire) shows what the
// bin costs; both figures are logged.
func TestRecycleBinOffCostsNothing(t *testing.T) {
	ctx, s := startRecycleBinStack(t) // no --volume-retention: off
	createStorageClass(ctx, t, s, "plain")
	createStorageClass(ctx, t, s, "binned", withRetention("3s"))
	pvList, err := s.Client().CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	history := watchPVs(ctx, t, s, "", pvList.ResourceVersion)

	classOf := map[string]string{} // PV name -> class
	var pvs []*corev1.PersistentVolume
	for _, class := range []string{"plain", "binned"} {
		for i := range recycleBinCostClaims {
			createClaim(ctx, t, s, "default", fmt.Sprintf("%s-%d", class, i), class)
		}
	}
	for _, class := range []string{"plain", "binned"} {
		for i := range recycleBinCostClaims {
			_, pv := waitForClaimBound(ctx, t, s, "default", fmt.Sprintf("%s-%d", class, i))
			classOf[pv.Name] = class
			pvs = append(pvs, pv)
		}
	}
	deleting := time.Now()
	for _, class := range []string{"plain", "binned"} {
		for i := range recycleBinCostClaims {
			deleteClaim(ctx, t, s, "default", fmt.Sprintf("%s-%d", class, i))
		}
	}
	for _, pv := range pvs {
		waitForPVGone(ctx, t, s, pv.Name)
		waitForBackendVolumeGone(ctx, t, s, pv.Spec.CSI.VolumeHandle)
		if classOf[pv.Name] == "binned" {
			// The bin's events are the last of its requests.
			waitForPVEvent(ctx, t, s, pv.Name, corev1.EventTypeNormal, reasonVolumeRetained)
			waitForPVEvent(ctx, t, s, pv.Name, corev1.EventTypeNormal, reasonVolumeRetentionExpired)
		}
		history.waitForVersion(ctx, t, s, pv.Name, "its deletion", func(p *corev1.PersistentVolume) bool { return p.DeletionTimestamp != nil })
	}

	for _, pv := range pvs {
		if n := len(deleteVolumeRequests(t, s, pv.Spec.CSI.VolumeHandle)); n != 1 {
			t.Errorf("%s volume %s: %d DeleteVolume, want 1", classOf[pv.Name], pv.Spec.CSI.VolumeHandle, n)
		}
		if classOf[pv.Name] != "plain" {
			continue
		}
		for _, v := range history.of(pv.Name) {
			if keys := binKeys(v); len(keys) > 0 {
				t.Errorf("PV %s of a class without retention carried %v (version %s)", pv.Name, keys, v.ResourceVersion)
			}
		}
		if reasons := pvEventReasons(ctx, t, s, pv.Name); slices.ContainsFunc(reasons, func(r string) bool { return strings.HasPrefix(r, "VolumeRet") || strings.HasPrefix(r, "VolumeRestor") }) {
			t.Errorf("PV %s of a class without retention has bin events %v", pv.Name, reasons)
		}
	}

	events, err := sidecarAuditEvents(s)
	if err != nil {
		t.Fatal(err)
	}
	perClass := map[string]map[string]int{"plain": {}, "binned": {}}
	for _, ev := range events {
		if ev.ObjectRef == nil || ev.ObjectRef.Name == "" || ev.RequestReceived.Before(deleting) {
			continue // lists and watches are shared; before the deletions is provisioning
		}
		name, _, _ := strings.Cut(ev.ObjectRef.Name, ".") // events are <object>.<suffix>
		class, ok := classOf[name]
		if !ok {
			continue
		}
		perClass[class][ev.Verb+" "+ev.ObjectRef.Resource]++
	}
	describe := func(class string) (float64, string) {
		total := 0
		var parts []string
		for k, n := range perClass[class] {
			total += n
			parts = append(parts, fmt.Sprintf("%s %.1f", k, float64(n)/recycleBinCostClaims))
		}
		sort.Strings(parts)
		return float64(total) / recycleBinCostClaims, strings.Join(parts, ", ")
	}
	on, onParts := describe("binned")
	off, offParts := describe("plain")
	t.Logf("requests per deleted volume: on=%.1f (%s), off=%.1f (%s)", on, onParts, off, offParts)

	// Today's library, per deleted volume: DELETE the PV, then PATCH its
	// finalizer away. Anything more with retention off is the bin's.
	want := map[string]int{"delete persistentvolumes": recycleBinCostClaims, "patch persistentvolumes": recycleBinCostClaims}
	for k, n := range perClass["plain"] {
		if strings.HasPrefix(k, "get ") || strings.HasPrefix(k, "list ") {
			continue // reads by name are not writes; logged above
		}
		if n != want[k] {
			t.Errorf("with retention off: %d %s for %d deleted volumes, want %d (the library's own)", n, k, recycleBinCostClaims, want[k])
		}
	}
	for k, n := range want {
		if perClass["plain"][k] != n {
			t.Errorf("with retention off: %d %s for %d deleted volumes, want %d (the library's own)", perClass["plain"][k], k, recycleBinCostClaims, n)
		}
	}
	// Reads of one PV by name with retention off: none today.
	for k, n := range perClass["plain"] {
		if strings.HasPrefix(k, "get ") {
			t.Errorf("with retention off: %d %s for %d deleted volumes, want none", n, k, recycleBinCostClaims)
		}
	}
}
