//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

const (
	// chaosRounds kills and restarts of the sidecar, each with
	// chaosClaimsPerRound claims in flight: 32 claims per run.
	chaosRounds         = 8
	chaosClaimsPerRound = 4
	// chaosCreateDelay is how long the backend takes to make a volume: long
	// enough for kills to land inside CreateVolume, short enough for many
	// rounds in a minute.
	chaosCreateDelay = 1500 * time.Millisecond
	// chaosDeleteDelay holds each DeleteVolume in the driver, long enough
	// to stop the sidecar that sent one before it can act on the reply.
	chaosDeleteDelay = 500 * time.Millisecond
	// chaosSeedEnv replays a run's schedule; every run logs its seed.
	chaosSeedEnv = "CHAOS_SEED"
	// killMomentPoll is how often the kill moment is looked for: the PV is
	// saved and the finalizer removed within tens of milliseconds.
	killMomentPoll = 10 * time.Millisecond
	// convergeTimeout bounds the wait for everything to be cleaned up at the
	// end. A PV made for a claim that was already gone is only released at
	// the PV binder's next periodic sync (15s).
	convergeTimeout = 90 * time.Second
	chaosNamespace  = "default"
)

// Whatever the moment the sidecar dies (SIGKILL) and whenever a claim is
// deleted around it, provisioning protection leaves no volume behind that
// has no PV, no deleted claim stuck Terminating, and never makes a claim's
// volume twice: not even when the sidecar dies again right after deleting
// the volume it found for a claim deleted during a killed CreateVolume. The
// same schedule with the gate off must leak: a sidecar that dies during
// CreateVolume of a claim deleted before it is back never learns of the
// volume the backend finishes. That run shows the test can fail, and that
// the gate is what makes the first one pass.
func TestChaosNoLeakNoStuckClaim(t *testing.T) {
	seed := chaosSeed(t)
	plan := planChaos(seed, chaosRounds, chaosClaimsPerRound, chaosCreateDelay)

	t.Run("gate_on", func(t *testing.T) {
		res := runChaos(t, plan, chaosMode{protection: true})
		t.Logf("gate on: %d claims, %d leaked, %d stuck, %d created twice (seed %d)", res.claims, len(res.leaked), len(res.stuck), len(res.twice), seed)
		t.Logf("gate on: the kills caught %s; %d abandoned volume(s) deleted", res.coverage(), res.abandoned)
		t.Logf("gate on: the kill during the undo of an abandoned volume hit %d of %d time(s)", res.undoHits, res.undoRounds)
		res.requireNoLeak(t)
		res.requireSettled(t)
		if res.abandoned == 0 {
			t.Errorf("no %s event: the claims deleted during a killed CreateVolume were not resolved by the protection", reasonAbandonedVolume)
		}
		if res.undoRounds > 0 && res.undoHits == 0 {
			t.Errorf("no kill landed between the DeleteVolume of an abandoned volume and the release of its claim: the run proves nothing about a crash there")
		}
	})
	t.Run("gate_off", func(t *testing.T) {
		res := runChaos(t, plan, chaosMode{})
		t.Logf("gate off: %d claims, %d leaked, %d stuck, %d created twice (seed %d)", res.claims, len(res.leaked), len(res.stuck), len(res.twice), seed)
		t.Logf("gate off: the kills caught %s; the kill during the undo hit %d of %d time(s)", res.coverage(), res.undoHits, res.undoRounds)
		if len(res.leaked) == 0 {
			t.Errorf("without provisioning protection nothing leaked: the schedule never reached the leak, so the run with the gate on proves nothing")
		}
		// Turning the gate off must not hold claims or duplicate volumes.
		res.requireSettled(t)
	})
}

// The same schedule for restores from a VolumeSnapshot, with the real
// snapshot-controller and csi-snapshotter, under upstream v6.3's RBAC (which
// lets the sidecar protect the snapshot), and with the driver's volumes
// named after their claims (--volume-name-template) and a class parameter
// rendered from each claim (--claim-parameter-templates): no volume leaks,
// no claim sticks, none is made twice under its readable name, and once
// every restore is settled the snapshot and its source can be deleted
// (nothing keeps holding them). A retry or the replay of a claim deleted
// during a killed CreateVolume must ask for the name and parameters of the
// first attempt, which the claim records with its finalizer; one that asked
// for others would leave the first volume behind or be refused by the
// driver, and the claim would stick.
func TestChaosRestoresNoLeakNoStuckClaim(t *testing.T) {
	seed := chaosSeed(t)
	plan := planChaos(seed, chaosRounds, chaosClaimsPerRound, chaosCreateDelay)
	res := runChaos(t, plan, chaosMode{protection: true, restore: true, readableNames: true, claimParameters: true})
	t.Logf("restores, readable names, gate on: %d claims, %d leaked, %d stuck, %d created twice (seed %d)", res.claims, len(res.leaked), len(res.stuck), len(res.twice), seed)
	t.Logf("restores, readable names, gate on: the kills caught %s; %d abandoned volume(s) deleted", res.coverage(), res.abandoned)
	res.requireNoLeak(t)
	res.requireSettled(t)
	if res.abandoned == 0 {
		t.Errorf("no %s event: the restores deleted during a killed CreateVolume were not resolved by the protection", reasonAbandonedVolume)
	}
}

// chaosMode is what a chaos run runs with.
type chaosMode struct {
	protection bool
	// restore makes every claim a restore of one snapshot, taken of a
	// claim made before the rounds and deleted with it after them.
	restore bool
	// readableNames runs the sidecar with flagReadableNames: the driver
	// names each volume after its claim (readableVolumeName), not
	// pvc-<UID>, and the run accounts for the volumes by those names.
	readableNames bool
	// claimParameters runs the sidecar with flagClaimParameters and gives
	// the class a parameter rendered from each claim's namespace and name.
	claimParameters bool
}

// volumeName is the name the driver gets for a claim's volume in the mode.
func (m chaosMode) volumeName(pvc *corev1.PersistentVolumeClaim) string {
	if m.readableNames {
		return readableVolumeName(pvc)
	}
	return "pvc-" + string(pvc.UID)
}

// chaosSeed returns the seed from chaosSeedEnv, or a new one, and logs it.
func chaosSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(chaosSeedEnv); v != "" {
		parsed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", chaosSeedEnv, v, err)
		}
		seed = parsed
	}
	t.Logf("chaos seed %d (replay the schedule with %s=%d)", seed, chaosSeedEnv, seed)
	return seed
}

// chaosClaim is a trial as it ran.
type chaosClaim struct {
	trial chaosTrial
	// volume is the name the driver gets for the claim's volume.
	volume string
	// deletedAt and deleteErr are written by whoever deletes the claim and
	// read once the round's deletions are done.
	deletedAt time.Time
	deleteErr error
	// kill is the moment of the round's kill; atKill is how far the claim
	// had got then, and deleted when it was deleted relative to the kill.
	kill    killMoment
	atKill  string
	deleted string
	// atUndoKill is, for the claim of a killDuringUndo round, how far the
	// undo of its volume had got at the second kill.
	atUndoKill string
}

// chaosRun is one stack going through the whole plan.
type chaosRun struct {
	t      *testing.T
	ctx    context.Context
	s      *framework.Stack
	claims []*chaosClaim
	// undoRounds counts the killDuringUndo rounds run, and undoHits those
	// whose second kill fell between the DeleteVolume and the claim's
	// release.
	undoRounds, undoHits int
	// mutate makes each claim of a round what the mode asks for.
	mutate []func(*corev1.PersistentVolumeClaim)
	// mode is what the run runs with.
	mode chaosMode
	// sourceVolume is the driver's name of the restores' source volume.
	sourceVolume string
}

const (
	chaosRestoreSource   = "chaos-golden"
	chaosRestoreSnapshot = "chaos-golden-snap"
)

func runChaos(t *testing.T, plan []chaosRound, mode chaosMode) chaosResult {
	args := []string{
		// Provisioning retried within seconds, not minutes, after the
		// errors a restart causes.
		"--retry-interval-max=2s",
	}
	if !mode.protection {
		args = append(args, "--feature-gates=ProvisioningProtection=false")
	}
	var classOpts []func(*storagev1.StorageClass)
	if mode.readableNames {
		args = append(args, flagReadableNames)
		// The driver's log is read by volume name throughout the run.
		recognizeReadableVolumeNames(t)
	}
	if mode.claimParameters {
		args = append(args, flagClaimParameters)
		classOpts = append(classOpts, withParameters(map[string]string{"claim": "${pvc.namespace}/${pvc.name}"}))
	}
	rbac := upstreamRBACv510
	if mode.restore {
		// v5.1's rules cannot protect a snapshot source; v6.3's can.
		rbac = upstreamRBACv630
	}
	ctx, s := startStack(t, framework.StackOptions{
		Snapshots: framework.SnapshotOptions{Enabled: mode.restore},
		Driver: framework.DriverOptions{
			CreateDelay:          chaosCreateDelay,
			DeleteDelay:          chaosDeleteDelay,
			CreateOutlivesCaller: true,
			Verbosity:            driverRequestVerbosity,
		},
		// Upstream's rules: the finalizer writes of the protection must work
		// under what a vendor who swaps the image already has.
		Sidecar: framework.SidecarOptions{ExtraArgs: args, RBACManifest: rbac},
	})
	createStorageClass(ctx, t, s, "mock", classOpts...)
	run := &chaosRun{t: t, ctx: ctx, s: s, mode: mode}
	if mode.restore {
		source := createClaim(ctx, t, s, chaosNamespace, chaosRestoreSource, "mock")
		run.sourceVolume = mode.volumeName(source)
		waitForClaimBound(ctx, t, s, chaosNamespace, chaosRestoreSource)
		if err := s.CreateSnapshot(ctx, chaosNamespace, chaosRestoreSnapshot, chaosRestoreSource); err != nil {
			t.Fatal(err)
		}
		if _, err := s.WaitSnapshotReady(ctx, chaosNamespace, chaosRestoreSnapshot); err != nil {
			t.Fatal(err)
		}
		run.mutate = append(run.mutate, restoredFrom(chaosRestoreSnapshot))
	}
	start := time.Now()
	rounds := 0
	for r, round := range plan {
		rounds++
		if !run.round(r, round) {
			break
		}
	}
	if mode.restore {
		run.deleteRestoreSource()
	}
	run.converge()
	t.Logf("%d of %d rounds in %s", rounds, len(plan), time.Since(start).Round(time.Second))
	return run.account()
}

// round runs one kill and restart with its claims, and waits until the
// round's claims are gone and the backend is idle. It returns false if they
// did not settle, which ends the run: later rounds would only wait as long.
func (c *chaosRun) round(r int, round chaosRound) bool {
	t := c.t
	start := time.Now()
	var claims []*chaosClaim
	var soon sync.WaitGroup
	for _, trial := range round.trials {
		sleepUntil(start.Add(trial.createAt))
		pvc := createClaim(c.ctx, t, c.s, chaosNamespace, trial.name, "mock", c.mutate...)
		cl := &chaosClaim{trial: trial, volume: c.mode.volumeName(pvc), kill: round.kill}
		claims = append(claims, cl)
		c.claims = append(c.claims, cl)
		if trial.deleteAt == deleteSoonAfterCreate {
			// On its own goroutine, so the deletion may fall anywhere
			// relative to the kill; the error is reported after Wait.
			soon.Go(func() {
				// Real time on purpose: the random delay is the input.
				time.Sleep(trial.deleteDelay)
				cl.deleteErr = c.delete(cl)
			})
		}
	}

	c.awaitKillMoment(r, round.kill, claims[len(claims)-1])
	// Real time on purpose: where in the moment the kill falls is random.
	time.Sleep(round.killDelay)
	for _, cl := range claims {
		if cl.trial.deleteAt == deleteJustBeforeKill {
			if err := c.delete(cl); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := c.s.Sidecar().Kill(); err != nil {
		t.Fatalf("round %d: kill the sidecar: %v", r, err)
	}
	killedAt := time.Now()
	c.noteProgress(claims)

	c.deleteInOrder(claims, deleteWhileDown, killedAt)
	sleepUntil(killedAt.Add(round.down))
	if err := c.s.Sidecar().Restart(c.ctx); err != nil {
		t.Fatalf("round %d: restart the sidecar: %v", r, err)
	}
	restartedAt := time.Now()
	if round.kill == killDuringUndo {
		// First: the restarted sidecar undoes the abandoned volume at
		// once, and the undo must not be over before the watch for its
		// DeleteVolume starts. The claims due after the restart are
		// deleted after the next one.
		c.killDuringUndo(r, round, claims[len(claims)-1])
	}
	c.deleteInOrder(claims, deleteAfterRestart, restartedAt)
	soon.Wait()

	var parts []string
	for _, cl := range claims {
		if cl.deleteErr != nil {
			t.Fatal(cl.deleteErr)
		}
		cl.deleted = "after the restart"
		switch {
		case cl.deletedAt.Before(killedAt):
			cl.deleted = "before the kill"
		case cl.deletedAt.Before(restartedAt):
			cl.deleted = "while down"
		}
		parts = append(parts, fmt.Sprintf("%s [%s; deleted %s]", cl.trial.name, cl.atKill, cl.deleted))
	}
	t.Logf("round %d: killed %s (+%s), down %s: %s", r, round.kill, round.killDelay.Round(time.Millisecond),
		restartedAt.Sub(killedAt).Round(time.Millisecond), strings.Join(parts, ", "))
	if last := claims[len(claims)-1]; last.atUndoKill != "" {
		t.Logf("round %d: %s at the kill during the undo: %s", r, last.trial.name, last.atUndoKill)
	}

	err := c.s.WaitFor(c.ctx, waitTimeout, fmt.Sprintf("round %d's claims to be gone and the backend idle", r), func(ctx context.Context) (bool, error) {
		var left []string
		for _, cl := range claims {
			pvc, err := c.s.Client().CoreV1().PersistentVolumeClaims(chaosNamespace).Get(ctx, cl.trial.name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return false, err
			default:
				left = append(left, fmt.Sprintf("%s (finalizers %v)", pvc.Name, pvc.Finalizers))
			}
		}
		l, err := readCreateVolumeLog(c.s)
		if err != nil {
			return false, err
		}
		running := l.running()
		return len(left) == 0 && len(running) == 0, fmt.Errorf("claims left %v, still creating %v", left, running)
	})
	if err != nil {
		t.Errorf("round %d did not settle: %v", r, err)
		return false
	}
	return true
}

// awaitKillMoment waits until the claim has got as far as the kill moment.
// A live claim that never gets there means the sidecar is not provisioning,
// which is a failure of its own.
func (c *chaosRun) awaitKillMoment(r int, m killMoment, cl *chaosClaim) {
	if m == killRightAfterCreate {
		return
	}
	cond := func(ctx context.Context) (bool, error) {
		l, err := readCreateVolumeLog(c.s)
		if err != nil {
			return false, err
		}
		return l.received[cl.volume] > 0, nil
	}
	switch m {
	case killVolumeCreated:
		cond = func(ctx context.Context) (bool, error) {
			l, err := readCreateVolumeLog(c.s)
			if err != nil {
				return false, err
			}
			return l.created[cl.volume] > 0, nil
		}
	case killClaimBound:
		cond = func(ctx context.Context) (bool, error) {
			pvc, err := c.s.Client().CoreV1().PersistentVolumeClaims(chaosNamespace).Get(ctx, cl.trial.name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return pvc.Status.Phase == corev1.ClaimBound, fmt.Errorf("phase %q", pvc.Status.Phase)
		}
	}
	timeout := 3*chaosCreateDelay + waitTimeout/2
	if err := c.s.WaitEvery(c.ctx, killMomentPoll, timeout, fmt.Sprintf("round %d: %s %s", r, cl.trial.name, m), cond); err != nil {
		c.t.Errorf("%v; killing the sidecar anyway", err)
	}
}

// killDuringUndo kills the sidecar again right after the driver deleted
// the volume of the claim, which was deleted during its CreateVolume before
// the sidecar came back, and restarts it after the round's down time. It
// counts a hit if the claim was still held at the kill: its volume deleted,
// its release not yet done. Without provisioning protection the claim is
// gone at once and there is no undo to kill.
func (c *chaosRun) killDuringUndo(r int, round chaosRound, cl *chaosClaim) {
	t := c.t
	c.undoRounds++
	killed, err := killAfterDeleteVolume(c.ctx, c.s, waitTimeout, cl.volume, func(ctx context.Context) (bool, error) {
		_, err := c.s.Client().CoreV1().PersistentVolumeClaims(chaosNamespace).Get(ctx, cl.trial.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		t.Errorf("round %d: %v", r, err)
	}
	waitErr := err
	killedAt := time.Now()

	l, err := readDeleteVolumeLog(c.s)
	if err != nil {
		t.Fatal(err)
	}
	volumeDeleted := l.deleted[cl.volume] > 0
	pvc, err := c.s.Client().CoreV1().PersistentVolumeClaims(chaosNamespace).Get(c.ctx, cl.trial.name, metav1.GetOptions{})
	switch {
	case !killed && waitErr != nil:
		cl.atUndoKill = "not killed: no DeleteVolume came"
	case !killed:
		cl.atUndoKill = "not killed: the claim was let go without an undo"
	case apierrors.IsNotFound(err):
		cl.atUndoKill = fmt.Sprintf("claim already let go (volume deleted %v)", volumeDeleted)
	case err != nil:
		t.Fatalf("get PVC %s: %v", cl.trial.name, err)
	case volumeDeleted && hasFinalizer(pvc, provisioningProtection):
		c.undoHits++
		cl.atUndoKill = fmt.Sprintf("volume deleted, claim still held (%s=%q)", abandonedVolume, pvc.Annotations[abandonedVolume])
	default:
		cl.atUndoKill = fmt.Sprintf("volume deleted %v, claim finalizers %v", volumeDeleted, pvc.Finalizers)
	}
	if !killed {
		return
	}
	sleepUntil(killedAt.Add(round.down))
	if err := c.s.Sidecar().Restart(c.ctx); err != nil {
		t.Fatalf("round %d: restart the sidecar after the kill during the undo: %v", r, err)
	}
}

// noteProgress records how far each claim had got when the sidecar died.
// It is read right after the kill, so it is close, not exact.
func (c *chaosRun) noteProgress(claims []*chaosClaim) {
	l, err := readCreateVolumeLog(c.s)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, cl := range claims {
		pvc, err := c.s.Client().CoreV1().PersistentVolumeClaims(chaosNamespace).Get(c.ctx, cl.trial.name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			cl.atKill = "gone"
			continue
		case err != nil:
			c.t.Fatalf("get PVC %s: %v", cl.trial.name, err)
		}
		switch {
		case pvc.Status.Phase == corev1.ClaimBound:
			cl.atKill = progressBound
		case l.created[cl.volume] > 0:
			cl.atKill = progressVolumeMade
		case l.received[cl.volume] > 0:
			cl.atKill = progressInCreateVolume
		default:
			cl.atKill = progressNotSent
		}
		if isTerminating(pvc) {
			cl.atKill = "Terminating, " + cl.atKill
		}
	}
}

// How far a claim had got when the sidecar died.
const (
	progressNotSent        = "CreateVolume not sent"
	progressInCreateVolume = "inside CreateVolume"
	progressVolumeMade     = "volume made, not bound"
	progressBound          = "bound"
)

// deleteInOrder deletes the claims planned for the moment, each its delay
// after since.
func (c *chaosRun) deleteInOrder(claims []*chaosClaim, moment deleteMoment, since time.Time) {
	var due []*chaosClaim
	for _, cl := range claims {
		if cl.trial.deleteAt == moment {
			due = append(due, cl)
		}
	}
	slices.SortFunc(due, func(a, b *chaosClaim) int { return int(a.trial.deleteDelay - b.trial.deleteDelay) })
	for _, cl := range due {
		sleepUntil(since.Add(cl.trial.deleteDelay))
		if err := c.delete(cl); err != nil {
			c.t.Fatal(err)
		}
	}
}

// deleteRestoreSource deletes the snapshot the rounds restored from, and
// its source claim, once every round settled; the snapshot must go, which it
// cannot while a source-protection finalizer is left on it.
func (c *chaosRun) deleteRestoreSource() {
	snapshots := c.s.SnapshotClient().SnapshotV1().VolumeSnapshots(chaosNamespace)
	if err := snapshots.Delete(c.ctx, chaosRestoreSnapshot, metav1.DeleteOptions{}); err != nil {
		c.t.Fatalf("delete snapshot %s: %v", chaosRestoreSnapshot, err)
	}
	err := c.s.WaitFor(c.ctx, waitTimeout, "the restores' snapshot to be gone", func(ctx context.Context) (bool, error) {
		snap, err := snapshots.Get(ctx, chaosRestoreSnapshot, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		return false, fmt.Errorf("finalizers %v", snap.Finalizers)
	})
	if err != nil {
		c.t.Errorf("the snapshot restored from stays after every restore settled: %v", err)
	}
	deleteClaim(c.ctx, c.t, c.s, chaosNamespace, chaosRestoreSource)
}

// delete deletes a claim and records when. It may run on its own goroutine,
// so it reports rather than fails.
func (c *chaosRun) delete(cl *chaosClaim) error {
	err := c.s.Client().CoreV1().PersistentVolumeClaims(chaosNamespace).Delete(c.ctx, cl.trial.name, metav1.DeleteOptions{})
	cl.deletedAt = time.Now()
	if err != nil {
		return fmt.Errorf("delete PVC %s: %w", cl.trial.name, err)
	}
	return nil
}

// converge waits until every claim is gone, the backend idle and every PV
// deleted. A wait that ends without it is not fatal: account says what was
// left.
func (c *chaosRun) converge() {
	err := c.s.WaitFor(c.ctx, convergeTimeout, "every claim and PV to be gone and the backend idle", func(ctx context.Context) (bool, error) {
		p, err := readPending(ctx, c.s, chaosNamespace)
		if err != nil {
			return false, err
		}
		return p.none(), errors.New(p.String())
	})
	if err != nil {
		c.t.Logf("not converged: %v", err)
	}
}

// chaosResult is what a run left behind.
type chaosResult struct {
	claims int
	// leaked are driver volumes that are no PV's handle.
	leaked []string
	// stuck are deleted claims that still exist.
	stuck []string
	// twice are names the backend made more than one volume under.
	twice []string
	// misnamed are names the backend made a volume under that are no
	// claim's of the run: a claim's volume made under another name than
	// the one its first attempt asked for, which twice cannot see.
	misnamed []string
	// pvsLeft are PVs still there; pvsWithoutVolume name a handle the
	// driver does not have.
	pvsLeft          []string
	pvsWithoutVolume []string
	// atKill counts the claims by how far they had got when a kill hit.
	atKill map[string]int
	// abandoned counts AbandonedVolumeDeleted events.
	abandoned int
	// undoRounds and undoHits are chaosRun's.
	undoRounds, undoHits int
}

// account compares what the driver holds with the PVs, and lists the claims
// that remain. Every claim was deleted, so every claim left is stuck.
func (c *chaosRun) account() chaosResult {
	t := c.t
	res := chaosResult{claims: len(c.claims), atKill: map[string]int{}, undoRounds: c.undoRounds, undoHits: c.undoHits}
	byVolume := map[string]*chaosClaim{}
	for _, cl := range c.claims {
		byVolume[cl.volume] = cl
		res.atKill[strings.TrimPrefix(cl.atKill, "Terminating, ")]++
	}
	describe := func(volume string) string {
		cl, ok := byVolume[volume]
		if !ok {
			return "no claim of this run"
		}
		d := fmt.Sprintf("claim %s, killed %s: %s at the kill, deleted %s", cl.trial.name, cl.kill, cl.atKill, cl.deleted)
		if cl.atUndoKill != "" {
			d += "; at the kill during the undo: " + cl.atUndoKill
		}
		return d
	}

	claims, err := c.s.Client().CoreV1().PersistentVolumeClaims(chaosNamespace).List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list PVCs: %v", err)
	}
	for _, pvc := range claims.Items {
		res.stuck = append(res.stuck, fmt.Sprintf("%s (deletionTimestamp %v, finalizers %v, phase %s)", pvc.Name, pvc.DeletionTimestamp, pvc.Finalizers, pvc.Status.Phase))
	}
	acct := accountBackend(c.ctx, t, c.s)
	for _, pv := range acct.pvs {
		res.pvsLeft = append(res.pvsLeft, fmt.Sprintf("%s (phase %s)", pv.Name, pv.Status.Phase))
	}
	res.pvsWithoutVolume = acct.pvsWithoutVolume
	for _, v := range acct.leaked {
		res.leaked = append(res.leaked, fmt.Sprintf("%s (%s; %s)", v.Name, v.ID, describe(v.Name)))
	}
	for _, cl := range c.claims {
		if n := acct.made(cl.volume); n > 1 {
			res.twice = append(res.twice, fmt.Sprintf("%s: %d volumes (%s)", cl.volume, n, describe(cl.volume)))
		}
	}
	for name := range acct.ids {
		if _, ok := byVolume[name]; !ok && name != c.sourceVolume {
			res.misnamed = append(res.misnamed, fmt.Sprintf("%s: %d volume(s)", name, acct.made(name)))
		}
	}
	slices.Sort(res.misnamed)
	events, err := c.s.Client().CoreV1().Events(chaosNamespace).List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	for _, ev := range events.Items {
		if ev.Reason == reasonAbandonedVolume {
			res.abandoned += max(int(ev.Count), 1)
		}
	}
	for _, s := range res.leaked {
		t.Logf("leaked: %s", s)
	}
	for _, s := range res.stuck {
		t.Logf("stuck: %s", s)
	}
	return res
}

// requireNoLeak fails the test unless the driver's volumes are exactly the
// handles of the PVs.
func (res chaosResult) requireNoLeak(t *testing.T) {
	t.Helper()
	for _, s := range res.leaked {
		t.Errorf("leaked volume %s", s)
	}
	for _, s := range res.pvsWithoutVolume {
		t.Errorf("PV %s names a volume the driver does not have", s)
	}
}

// requireSettled fails the test for a deleted claim or a PV still there,
// and for a claim whose volume was made twice or under another name.
func (res chaosResult) requireSettled(t *testing.T) {
	t.Helper()
	for _, s := range res.stuck {
		t.Errorf("stuck claim %s", s)
	}
	for _, s := range res.twice {
		t.Errorf("volume made twice: %s", s)
	}
	for _, s := range res.misnamed {
		t.Errorf("volume made under a name no claim of the run has: %s", s)
	}
	for _, s := range res.pvsLeft {
		t.Errorf("PV left: %s", s)
	}
}

// coverage says how far the claims had got when kills hit them, to show
// that the kills landed where it matters.
func (res chaosResult) coverage() string {
	var parts []string
	for _, p := range []string{progressNotSent, progressInCreateVolume, progressVolumeMade, progressBound, "gone"} {
		parts = append(parts, fmt.Sprintf("%d %s", res.atKill[p], p))
	}
	return strings.Join(parts, ", ")
}

// sleepUntil paces the schedule; it asserts nothing.
func sleepUntil(at time.Time) {
	// Real time on purpose: the schedule is in wall-clock time.
	time.Sleep(time.Until(at))
}
