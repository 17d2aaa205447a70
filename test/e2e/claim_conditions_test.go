//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// The claim conditions controller's condition and reasons, spelled out as
// users read them.
const (
	claimConditionType        = "provisioner.storage.kubernetes.io/Provisioning"
	reasonWaitingForConsumer  = "WaitingForFirstConsumer"
	reasonProvisioning        = "Provisioning"
	reasonDriverError         = "DriverError"
	reasonInfeasibleHeld      = "InfeasibleRetryDelayed"
	reasonDeletionProtected   = "DeletionProtected"
	claimConditionsGate       = "--feature-gates=ClaimConditions=true"
	metricClaimConditionWrite = "csi_provisioner_claim_conditions_writes_total"
)

// Timings of the walk: a CreateVolume slow enough for its state to be seen
// (the sidecar writes a state once it has lasted 2s), and an infeasible
// hold (--retry-interval-max) longer than the steps that watch it.
const (
	conditionCreateDelay = 10 * time.Second
	conditionHold        = 40 * time.Second
)

// One stack, three sidecars in turn. With the gate ClaimConditions off the
// sidecar provisions, refuses and waits as ever, and never writes a claim's
// status. With it on, claims walk through every state, each written once:
// WaitingForFirstConsumer, then Provisioning once a node is selected, then
// nothing once Bound; Provisioning while a first CreateVolume runs, then
// DriverError with the driver's code, or InfeasibleRetryDelayed until the
// time it names; Provisioning, then DeletionProtected for a claim deleted
// while its CreateVolume runs. A
// watch sees every change, and the audit log shows exactly one status
// write per change. A restart and a fast driver follow: the stop removes
// every condition (the hand-off, so that a provisioner that does not know
// it never binds a claim still saying Provisioning), the restarted sidecar
// writes again what still applies, and volumes made within the settle time
// cost no write at all.
func TestClaimConditionsWalkEachStateWithOneWritePerChange(t *testing.T) {
	httpFlag, metricsURL := metricsEndpoint(t)
	ctx, s := startStack(t, framework.StackOptions{
		Driver: framework.DriverOptions{
			Topology: true, NodeID: "node-1",
			CreateDelay: conditionCreateDelay, CreateOutlivesCaller: true,
			// A claim of 2Gi is refused with OutOfRange.
			MaxVolumeSize: 1 << 30,
		},
		Sidecar: framework.SidecarOptions{Deferred: true, ExtraRBACManifests: []string{framework.ClaimConditionsRBACManifest}},
	})
	createTopologyNode(ctx, t, s, "node-1")
	createStorageClass(ctx, t, s, "mock")
	createStorageClass(ctx, t, s, "mock-wffc", waitForFirstConsumer)
	createStorageClass(ctx, t, s, "mock-badpool", withParameters(map[string]string{framework.PoolParameter: "nope"}))
	sidecar := func(extra ...string) framework.SidecarOptions {
		return framework.SidecarOptions{
			ExtraRBACManifests: []string{framework.ClaimConditionsRBACManifest},
			ExtraArgs:          append([]string{"--retry-interval-max=" + conditionHold.String()}, extra...),
		}
	}

	// Gate off: provisioned, refused and waiting claims, and not one
	// status write (though RBAC would allow it).
	off, err := s.StartSidecar(ctx, sidecar())
	if err != nil {
		t.Fatal(err)
	}
	createClaim(ctx, t, s, "default", "off-bound", "mock")
	createClaim(ctx, t, s, "default", "off-refused", "mock", withStorage("2Gi"))
	createClaim(ctx, t, s, "default", "off-waiting", "mock-wffc")
	waitForClaimBound(ctx, t, s, "default", "off-bound")
	waitForClaimEvent(ctx, t, s, "default", "off-refused", corev1.EventTypeWarning, "ProvisioningFailed")
	waitForClaimEvent(ctx, t, s, "default", "off-waiting", corev1.EventTypeNormal, "WaitForFirstConsumer")
	for _, name := range []string{"off-bound", "off-refused", "off-waiting"} {
		if c := claimCondition(getClaim(ctx, t, s, "default", name)); c != nil {
			t.Errorf("with the gate off, claim %s carries %+v", name, *c)
		}
	}
	deleteClaim(ctx, t, s, "default", "off-refused")
	deleteClaim(ctx, t, s, "default", "off-waiting")
	waitForClaimGone(ctx, t, s, "default", "off-refused")
	waitForClaimGone(ctx, t, s, "default", "off-waiting")
	if err := off.Stop(); err != nil {
		t.Fatal(err)
	}
	gateOffEnd := time.Now()
	if writes := claimStatusWrites(t, s, time.Time{}, gateOffEnd); len(writes) != 0 {
		t.Errorf("with the gate off the sidecar wrote claim status: %v", writes)
	}

	// Gate on: the walk.
	rec := recordClaimConditions(ctx, t, s, "default")
	on, err := s.StartSidecar(ctx, sidecar(claimConditionsGate, httpFlag))
	if err != nil {
		t.Fatal(err)
	}
	gateOnStart := time.Now()
	createClaim(ctx, t, s, "default", "walk", "mock-wffc")
	createClaim(ctx, t, s, "default", "refused", "mock", withStorage("2Gi"))
	createClaim(ctx, t, s, "default", "infeasible", "mock-badpool")
	createClaim(ctx, t, s, "default", "deleted", "mock")
	const slowClaims = 4
	for i := range slowClaims {
		createClaim(ctx, t, s, "default", fmt.Sprintf("slow-%d", i), "mock")
	}

	c := waitForClaimCondition(ctx, t, s, "walk", reasonWaitingForConsumer)
	requireMessage(t, "walk", c, "StorageClass mock-wffc binds volumes with WaitForFirstConsumer")

	waitForClaimCondition(ctx, t, s, "deleted", reasonProvisioning)
	deleteClaim(ctx, t, s, "default", "deleted")
	c = waitForClaimCondition(ctx, t, s, "deleted", reasonDeletionProtected)
	requireMessage(t, "deleted", c, "Deletion waits: a CreateVolume for this claim may still be running")
	waitForClaimGone(ctx, t, s, "default", "deleted")

	selectNode(ctx, t, s, "default", "walk", "node-1")
	waitForClaimCondition(ctx, t, s, "walk", reasonProvisioning)
	waitForClaimBound(ctx, t, s, "default", "walk")
	waitForNoClaimCondition(ctx, t, s, "walk")

	c = waitForClaimCondition(ctx, t, s, "refused", reasonDriverError)
	requireMessage(t, "refused", c, "rpc error: code = OutOfRange desc = requested 2147483648 bytes")
	c = waitForClaimCondition(ctx, t, s, "infeasible", reasonInfeasibleHeld)
	requireMessage(t, "infeasible", c, "retries are delayed until ")
	requireMessage(t, "infeasible", c, `code = InvalidArgument desc = unknown pool "nope"`)
	firstHold := c.Message

	for i := range slowClaims {
		name := fmt.Sprintf("slow-%d", i)
		waitForClaimBound(ctx, t, s, "default", name)
		waitForNoClaimCondition(ctx, t, s, name)
	}
	// The metric counts what the audit log shows.
	waitFor(ctx, t, s, "the writes metric to count every status write", func(ctx context.Context) (bool, error) {
		body, err := framework.Scrape(ctx, metricsURL)
		if err != nil {
			return false, err
		}
		metric, err := framework.MetricSum(body, metricClaimConditionWrite)
		if err != nil {
			return false, err
		}
		audited := 0
		for _, byCode := range claimStatusWrites(t, s, gateOnStart, time.Now()) {
			for _, n := range byCode {
				audited += n
			}
		}
		return metric == float64(audited), fmt.Errorf("metric %v, audit log %d", metric, audited)
	})

	// A restart, onto a driver without delay. The stop hands the claims
	// off: no condition is left. The refused claim is refused again (one
	// write); the infeasible claim, whose hold the restart forgot, is
	// tried at once and held again (one write: its new time).
	refusals := driverCallsFailed(t, s, "CreateVolume", "OutOfRange")
	if err := on.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"refused", "infeasible"} {
		if c := claimCondition(getClaim(ctx, t, s, "default", name)); c != nil {
			t.Errorf("the stopped sidecar left claim %s with %+v", name, *c)
		}
	}
	fast := s.DriverOptions()
	fast.CreateDelay = 0
	if err := s.ReplaceDriver(ctx, fast); err != nil {
		t.Fatal(err)
	}
	if err := on.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, s, "a new infeasible hold", func(ctx context.Context) (bool, error) {
		c := claimCondition(getClaim(ctx, t, s, "default", "infeasible"))
		return c != nil && c.Reason == reasonInfeasibleHeld && c.Message != firstHold, fmt.Errorf("condition %+v", c)
	})
	const fastClaims = 6
	for i := range fastClaims {
		createClaim(ctx, t, s, "default", fmt.Sprintf("fast-%d", i), "mock")
	}
	for i := range fastClaims {
		waitForClaimBound(ctx, t, s, "default", fmt.Sprintf("fast-%d", i))
	}
	// The refused claim's retry after the restart has been answered.
	waitFor(ctx, t, s, "a refusal of the refused claim after the restart", func(ctx context.Context) (bool, error) {
		n := driverCallsFailed(t, s, "CreateVolume", "OutOfRange") - refusals
		return n >= 1, fmt.Errorf("%d refusals by the new driver", n)
	})
	for i := range fastClaims {
		waitForNoClaimCondition(ctx, t, s, fmt.Sprintf("fast-%d", i))
	}

	// What the watch saw, state by state, against the audit log's writes.
	seen := rec.states()
	want := map[string][]string{
		"walk":    {reasonWaitingForConsumer, reasonProvisioning, ""},
		"deleted": {reasonProvisioning, reasonDeletionProtected},
		// Its first CreateVolume takes the driver's delay too; the stop
		// clears the refusal, the restarted sidecar meets it again.
		"refused": {reasonProvisioning, reasonDriverError, "", reasonDriverError},
	}
	for i := range slowClaims {
		want[fmt.Sprintf("slow-%d", i)] = []string{reasonProvisioning, ""}
	}
	for name, w := range want {
		if got := reasonsOf(seen[name]); !slices.Equal(got, w) {
			t.Errorf("claim %s went through %q, want %q", name, got, w)
		}
	}
	if got := reasonsOf(seen["infeasible"]); len(got) < 4 || got[0] != reasonProvisioning ||
		slices.ContainsFunc(got[1:], func(r string) bool { return r != reasonInfeasibleHeld && r != "" }) ||
		len(slices.DeleteFunc(slices.Clone(got), func(r string) bool { return r != "" })) != 1 {
		t.Errorf("claim infeasible went through %q, want %s, then one %s per hold, cleared once by the stop", got, reasonProvisioning, reasonInfeasibleHeld)
	}
	for name, states := range seen {
		for _, st := range states {
			if st.Reason != "" && st.LastTransitionTime.IsZero() {
				t.Errorf("claim %s: %s without a lastTransitionTime", name, st.Reason)
			}
		}
	}

	var writes map[string]map[int]int
	waitFor(ctx, t, s, "one status write per change the watch saw", func(context.Context) (bool, error) {
		writes = claimStatusWrites(t, s, gateOnStart, time.Now())
		var diffs []string
		for _, name := range slices.Sorted(maps.Keys(mergeKeys(seen, writes))) {
			if ok, changes := writes[name][200], len(seen[name]); ok != changes {
				diffs = append(diffs, fmt.Sprintf("%s: %d writes, %d changes", name, ok, changes))
			}
		}
		return len(diffs) == 0, fmt.Errorf("%s", strings.Join(diffs, "; "))
	})

	// Writes per volume.
	perVolume := func(prefix string, n int) (float64, int) {
		ok, conflicts := 0, 0
		for i := range n {
			ok += writes[fmt.Sprintf("%s-%d", prefix, i)][200]
			conflicts += writes[fmt.Sprintf("%s-%d", prefix, i)][409]
		}
		return float64(ok) / float64(n), conflicts
	}
	slow, slowConflicts := perVolume("slow", slowClaims)
	quick, quickConflicts := perVolume("fast", fastClaims)
	total, conflicts := 0, 0
	for _, byCode := range writes {
		total += byCode[200]
		conflicts += byCode[409]
	}
	changes := 0
	for _, states := range seen {
		changes += len(states)
	}
	t.Logf("claim status writes: %d for %d state changes (%d conflicts, retried); per volume: %.2f with a %s CreateVolume (%d conflicts), %.2f with an instant one (%d conflicts)",
		total, changes, conflicts, slow, conditionCreateDelay, slowConflicts, quick, quickConflicts)
	if slow != 2 {
		t.Errorf("%.2f writes per volume with a %s CreateVolume, want 2 (Provisioning, then cleared)", slow, conditionCreateDelay)
	}
	if quick > 2 {
		t.Errorf("%.2f writes per volume with an instant CreateVolume, want at most 2", quick)
	}
}

// conditionState is one state of a claim as the watch saw it.
type conditionState struct {
	Reason, Message    string
	LastTransitionTime metav1.Time
}

// conditionRecorder keeps, per claim, every change of the condition a
// watch of the claims saw.
type conditionRecorder struct {
	mu   sync.Mutex
	seen map[string][]conditionState
}

// recordClaimConditions watches the claims of a namespace until the test
// ends.
func recordClaimConditions(ctx context.Context, t *testing.T, s *framework.Stack, namespace string) *conditionRecorder {
	t.Helper()
	w, err := s.Client().CoreV1().PersistentVolumeClaims(namespace).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch claims: %v", err)
	}
	t.Cleanup(w.Stop)
	r := &conditionRecorder{seen: map[string][]conditionState{}}
	go func() {
		for ev := range w.ResultChan() {
			claim, ok := ev.Object.(*corev1.PersistentVolumeClaim)
			if !ok {
				continue
			}
			st := conditionState{}
			if c := claimCondition(claim); c != nil {
				st = conditionState{Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime}
			}
			r.note(claim.Name, st)
		}
	}()
	return r
}

func (r *conditionRecorder) note(name string, st conditionState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	states := r.seen[name]
	last := conditionState{}
	if len(states) > 0 {
		last = states[len(states)-1]
	}
	if st.Reason != last.Reason || st.Message != last.Message {
		r.seen[name] = append(states, st)
	}
}

func (r *conditionRecorder) states() map[string][]conditionState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.seen)
}

func reasonsOf(states []conditionState) []string {
	out := []string{}
	for _, st := range states {
		out = append(out, st.Reason)
	}
	return out
}

func mergeKeys[A, B any](a map[string]A, b map[string]B) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// claimCondition is the sidecar's condition of a claim, nil for none.
func claimCondition(claim *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaimCondition {
	for i := range claim.Status.Conditions {
		if claim.Status.Conditions[i].Type == claimConditionType {
			return &claim.Status.Conditions[i]
		}
	}
	return nil
}

// waitForClaimCondition waits until a claim of the default namespace
// carries the sidecar's condition with reason, and returns it.
func waitForClaimCondition(ctx context.Context, t *testing.T, s *framework.Stack, name, reason string) corev1.PersistentVolumeClaimCondition {
	t.Helper()
	var found corev1.PersistentVolumeClaimCondition
	waitFor(ctx, t, s, fmt.Sprintf("claim %s to say %s", name, reason), func(ctx context.Context) (bool, error) {
		c := claimCondition(getClaim(ctx, t, s, "default", name))
		if c == nil {
			return false, fmt.Errorf("no condition %s", claimConditionType)
		}
		found = *c
		return c.Reason == reason && c.Status == corev1.ConditionTrue, fmt.Errorf("%s %s: %s", c.Status, c.Reason, c.Message)
	})
	return found
}

// waitForNoClaimCondition waits until a claim carries no condition of the
// sidecar.
func waitForNoClaimCondition(ctx context.Context, t *testing.T, s *framework.Stack, name string) {
	t.Helper()
	waitFor(ctx, t, s, fmt.Sprintf("claim %s to carry no %s", name, claimConditionType), func(ctx context.Context) (bool, error) {
		c := claimCondition(getClaim(ctx, t, s, "default", name))
		return c == nil, fmt.Errorf("condition %+v", c)
	})
}

func requireMessage(t *testing.T, claim string, c corev1.PersistentVolumeClaimCondition, part string) {
	t.Helper()
	if !strings.Contains(c.Message, part) {
		t.Errorf("claim %s: %s message %q, want it to say %q", claim, c.Reason, c.Message, part)
	}
}

// claimStatusWrites counts, per claim and response code, the writes of a
// claim's status the sidecar sent between from and to.
func claimStatusWrites(t *testing.T, s *framework.Stack, from, to time.Time) map[string]map[int]int {
	t.Helper()
	events, err := sidecarAuditEvents(s)
	if err != nil {
		t.Fatalf("read audit log: %v", err)
	}
	out := map[string]map[int]int{}
	for _, ev := range events {
		ref := ev.ObjectRef
		if ref == nil || ref.Resource != "persistentvolumeclaims" || ref.Subresource != "status" ||
			ev.RequestReceived.Before(from) || ev.RequestReceived.After(to) {
			continue
		}
		code := 0
		if ev.ResponseStatus != nil {
			code = ev.ResponseStatus.Code
		}
		if out[ref.Name] == nil {
			out[ref.Name] = map[int]int{}
		}
		out[ref.Name][code]++
	}
	return out
}

func withStorage(size string) func(*corev1.PersistentVolumeClaim) {
	return func(pvc *corev1.PersistentVolumeClaim) {
		pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(size)
	}
}
