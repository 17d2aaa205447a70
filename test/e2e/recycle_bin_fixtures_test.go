//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// The recycle bin's keys, spelled out rather than imported from
// pkg/recyclebin: users and their tooling write these exact strings.
const (
	annVolumeRetention = "provisioner.storage.kubernetes.io/volume-retention"
	annRetainedUntil   = "provisioner.storage.kubernetes.io/retained-until"
	annRetainedFrom    = "provisioner.storage.kubernetes.io/retained-from"
	labelRetained      = "provisioner.storage.kubernetes.io/retained"
	annRestoreTo       = "provisioner.storage.kubernetes.io/restore-to"
	annPurge           = "provisioner.storage.kubernetes.io/purge"
)

// The events the bin emits.
const (
	reasonVolumeRetained         = "VolumeRetained"
	reasonVolumeRestored         = "VolumeRestored"
	reasonVolumeRestoreRefused   = "VolumeRestoreRefused"
	reasonVolumeRetentionExpired = "VolumeRetentionExpired"
)

// startRecycleBinStack starts a stack whose driver logs every request (so
// DeleteVolume calls can be counted and timed) and whose sidecar runs with
// the extra flags, e.g. --volume-retention=1h.
func startRecycleBinStack(t *testing.T, sidecarArgs ...string) (context.Context, *framework.Stack) {
	t.Helper()
	return startStack(t, framework.StackOptions{
		Driver:  framework.DriverOptions{Verbosity: framework.DriverRequestVerbosity},
		Sidecar: framework.SidecarOptions{ExtraArgs: sidecarArgs},
	})
}

// withRetention sets the class's volume-retention annotation.
func withRetention(retention string) func(*storagev1.StorageClass) {
	return func(sc *storagev1.StorageClass) {
		metav1.SetMetaDataAnnotation(&sc.ObjectMeta, annVolumeRetention, retention)
	}
}

// retainedVolume is a volume the bin kept: its PV as first seen with the
// deadline recorded, the claim it came from, and the backend volume.
type retainedVolume struct {
	pv      *corev1.PersistentVolume
	claim   *corev1.PersistentVolumeClaim
	backend mockdriver.Volume
	// deleting is just before the claim was deleted.
	deleting time.Time
	until    time.Time
}

// provisionAndRetain provisions a claim, deletes it and waits until the bin
// has recorded the deadline on its PV.
func provisionAndRetain(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name, class string) retainedVolume {
	t.Helper()
	createClaim(ctx, t, s, namespace, name, class)
	claim, pv := waitForClaimBound(ctx, t, s, namespace, name)
	backend, ok := volumeByID(driverVolumes(t, s), pv.Spec.CSI.VolumeHandle)
	if !ok {
		t.Fatalf("driver has no volume %s", pv.Spec.CSI.VolumeHandle)
	}
	deleting := time.Now()
	deleteClaim(ctx, t, s, namespace, name)
	waitForClaimGone(ctx, t, s, namespace, name)
	pv = waitForRetained(ctx, t, s, pv.Name)
	return retainedVolume{pv: pv, claim: claim, backend: backend, deleting: deleting, until: retainedUntil(t, pv)}
}

// deleteIntoTheBin deletes claim namespace/name and waits until the bin
// has recorded the deadline on its PV, pvName. It returns the PV as then,
// the time just before the deletion and the deadline, which it checks is
// retention after the deletion.
func deleteIntoTheBin(ctx context.Context, t *testing.T, s *framework.Stack, namespace, name, pvName string, retention time.Duration) (_ *corev1.PersistentVolume, deleting, until time.Time) {
	t.Helper()
	deleting = time.Now()
	deleteClaim(ctx, t, s, namespace, name)
	waitForClaimGone(ctx, t, s, namespace, name)
	pv := waitForRetained(ctx, t, s, pvName)
	recorded := time.Now()
	until = retainedUntil(t, pv)
	if earliest, latest := deleting.Add(retention).Add(-time.Second), recorded.Add(retention).Add(time.Second); until.Before(earliest) || until.After(latest) {
		t.Errorf("retained until %s, want %s after the claim's deletion (%s to %s)", until, retention, earliest.UTC().Format(time.RFC3339), latest.UTC().Format(time.RFC3339))
	}
	return pv, deleting, until
}

// waitForRetained waits until a PV carries the bin's deadline.
func waitForRetained(ctx context.Context, t *testing.T, s *framework.Stack, name string) *corev1.PersistentVolume {
	t.Helper()
	var pv *corev1.PersistentVolume
	waitFor(ctx, t, s, "PV "+name+" to carry "+annRetainedUntil, func(ctx context.Context) (bool, error) {
		got, err := s.Client().CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pv = got
		_, ok := got.Annotations[annRetainedUntil]
		return ok, fmt.Errorf("phase %s, annotations %v, labels %v", got.Status.Phase, got.Annotations, got.Labels)
	})
	return pv
}

// retainedUntil parses the PV's deadline, which must be RFC 3339 in UTC
// with whole seconds.
func retainedUntil(t *testing.T, pv *corev1.PersistentVolume) time.Time {
	t.Helper()
	value := pv.Annotations[annRetainedUntil]
	until, err := time.Parse(time.RFC3339, value)
	if err != nil {
		t.Fatalf("PV %s: %s=%q is not RFC 3339: %v", pv.Name, annRetainedUntil, value, err)
	}
	if !strings.HasSuffix(value, "Z") || until.Nanosecond() != 0 || until.UTC().Format(time.RFC3339) != value {
		t.Errorf("PV %s: %s=%q, want UTC in whole seconds (like %s)", pv.Name, annRetainedUntil, value, until.UTC().Format(time.RFC3339))
	}
	return until
}

// binKeys lists the bin's keys a PV carries: the deadline, the origin, the
// label, a restore request.
func binKeys(pv *corev1.PersistentVolume) []string {
	var keys []string
	for _, k := range []string{annRetainedUntil, annRetainedFrom, annRestoreTo, annPurge} {
		if _, ok := pv.Annotations[k]; ok {
			keys = append(keys, k)
		}
	}
	if _, ok := pv.Labels[labelRetained]; ok {
		keys = append(keys, "label "+labelRetained)
	}
	return keys
}

// annotatePV sets an annotation on a PV, as a user with kubectl annotate.
func annotatePV(ctx context.Context, t *testing.T, s *framework.Stack, name, key, value string) *corev1.PersistentVolume {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, key, value)
	pv, err := s.Client().CoreV1().PersistentVolumes().Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("annotate PV %s: %v", name, err)
	}
	return pv
}

// forVolume makes the claim ask for one PV by name.
func forVolume(pv string) func(*corev1.PersistentVolumeClaim) {
	return func(pvc *corev1.PersistentVolumeClaim) { pvc.Spec.VolumeName = pv }
}

// waitForPVEvent waits for an event of the type and reason about a PV.
func waitForPVEvent(ctx context.Context, t *testing.T, s *framework.Stack, name, eventType, reason string) corev1.Event {
	t.Helper()
	return waitForEvent(ctx, t, s, "PersistentVolume", "", name, eventType, reason)
}

// pvEventReasons lists the reasons of the events about a PV.
func pvEventReasons(ctx context.Context, t *testing.T, s *framework.Stack, name string) []string {
	t.Helper()
	events, err := objectEvents(ctx, s, "PersistentVolume", "", name)
	if err != nil {
		t.Fatalf("list events of PV %s: %v", name, err)
	}
	var reasons []string
	for _, ev := range events {
		reasons = append(reasons, ev.Reason)
	}
	return reasons
}

// pvVersions records every version of the PVs a watch sees from a resource
// version on, so that a state that lasted only one write is not missed.
type pvVersions struct {
	mu       sync.Mutex
	versions map[string][]*corev1.PersistentVolume
}

// watchPVs watches the PVs (all, or the one named) from resourceVersion.
func watchPVs(ctx context.Context, t *testing.T, s *framework.Stack, name, resourceVersion string) *pvVersions {
	t.Helper()
	opts := metav1.ListOptions{ResourceVersion: resourceVersion}
	if name != "" {
		opts.FieldSelector = "metadata.name=" + name
	}
	w, err := s.Client().CoreV1().PersistentVolumes().Watch(ctx, opts)
	if err != nil {
		t.Fatalf("watch PVs: %v", err)
	}
	t.Cleanup(w.Stop)
	rec := &pvVersions{versions: map[string][]*corev1.PersistentVolume{}}
	go func() {
		for ev := range w.ResultChan() {
			if ev.Type != watch.Added && ev.Type != watch.Modified && ev.Type != watch.Deleted {
				continue
			}
			if pv, ok := ev.Object.(*corev1.PersistentVolume); ok {
				rec.mu.Lock()
				rec.versions[pv.Name] = append(rec.versions[pv.Name], pv.DeepCopy())
				rec.mu.Unlock()
			}
		}
	}()
	return rec
}

// of returns the versions of one PV seen so far.
func (r *pvVersions) of(name string) []*corev1.PersistentVolume {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.versions[name])
}

// waitForVersion waits until the watch has seen a version of the PV that
// satisfies ok, so that checks of the recorded history cover that write.
func (r *pvVersions) waitForVersion(ctx context.Context, t *testing.T, s *framework.Stack, name, what string, ok func(*corev1.PersistentVolume) bool) {
	t.Helper()
	waitFor(ctx, t, s, "the watch of PV "+name+" to see "+what, func(context.Context) (bool, error) {
		return slices.ContainsFunc(r.of(name), ok), fmt.Errorf("%d versions seen", len(r.of(name)))
	})
}

// deleteVolumeRequests returns the times at which the driver received a
// DeleteVolume for the handle, from its log (at DriverRequestVerbosity).
func deleteVolumeRequests(t *testing.T, s *framework.Stack, handle string) []time.Time {
	t.Helper()
	return deleteVolumeRequestsIn(t, s.Driver().LogFile(), handle)
}

// deleteVolumeRequestsIn is deleteVolumeRequests for the driver that logs to
// logFile, e.g. one node's driver (Stack.NodeDriver).
func deleteVolumeRequestsIn(t *testing.T, logFile, handle string) []time.Time {
	t.Helper()
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("read driver log: %v", err)
	}
	var times []time.Time
	for line := range strings.SplitSeq(string(data), "\n") {
		if !strings.Contains(line, `"Request"`) || !strings.Contains(line, `method="DeleteVolume"`) {
			continue
		}
		m := deleteRequestRE.FindStringSubmatch(line)
		if m == nil || m[1] != handle {
			continue
		}
		at, ok := klogTime(line)
		if !ok {
			t.Fatalf("no klog time in driver log line %q", line)
		}
		times = append(times, at)
	}
	return times
}

// klogTime reads the time of a klog text line ("I1127 06:10:00.123456 ..."),
// which is local time of this year.
func klogTime(line string) (time.Time, bool) {
	f := strings.Fields(line)
	if len(f) < 2 || len(f[0]) != 5 {
		return time.Time{}, false
	}
	at, err := time.ParseInLocation("2006 0102 15:04:05.000000", fmt.Sprintf("%d %s %s", time.Now().Year(), f[0][1:], f[1]), time.Local)
	return at, err == nil
}

// sidecarPVWrites lists the sidecar's writes to a PV (verb and
// subresource) received at or after since, from the audit log.
func sidecarPVWrites(t *testing.T, s *framework.Stack, name string, since time.Time) []string {
	t.Helper()
	events, err := sidecarAuditEvents(s)
	if err != nil {
		t.Fatal(err)
	}
	var writes []string
	for _, ev := range events {
		ref := ev.ObjectRef
		if ref == nil || ref.Resource != "persistentvolumes" || ref.Name != name || ev.RequestReceived.Before(since) {
			continue
		}
		switch ev.Verb {
		case "get", "list", "watch":
			continue
		}
		writes = append(writes, strings.TrimSuffix(ev.Verb+" "+ref.Subresource, " "))
	}
	return writes
}

// waitForBackendVolumeGone waits until the driver no longer holds the
// volume.
func waitForBackendVolumeGone(ctx context.Context, t *testing.T, s *framework.Stack, handle string) {
	t.Helper()
	waitFor(ctx, t, s, "the driver to delete volume "+handle, func(context.Context) (bool, error) {
		vols, err := s.DriverVolumes()
		if err != nil {
			return false, err
		}
		_, held := volumeByID(vols, handle)
		return !held, fmt.Errorf("still held")
	})
}
