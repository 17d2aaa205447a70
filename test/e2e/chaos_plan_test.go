//go:build e2e

package e2e

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// killMoment is where in its provisioning the last claim of a round is when
// the sidecar is killed. The other claims of the round were created earlier,
// at random offsets, so the same kill finds them at other points.
type killMoment int

const (
	// killRightAfterCreate: the claim was just created; the finalizer and
	// CreateVolume are about to be sent, or not even that.
	killRightAfterCreate killMoment = iota
	// killCreateVolumeArrived: the driver has just received CreateVolume.
	killCreateVolumeArrived
	// killDuringCreateVolume: part-way through the backend's creation.
	killDuringCreateVolume
	// killVolumeCreated: the backend has just made the volume; CreateVolume
	// returns and the PV is being saved.
	killVolumeCreated
	// killClaimBound: the claim has just been bound; the finalizer is being
	// removed.
	killClaimBound
	// killDuringUndo: two kills. The first hits during CreateVolume of a
	// claim deleted before the sidecar is back; the second comes right after
	// the restarted sidecar had the driver delete the volume it found for
	// that claim, before it could let the claim go. The next sidecar must
	// not look for the volume by name again: CreateVolume would make a new
	// one.
	killDuringUndo
	killMoments = iota
)

func (m killMoment) String() string {
	return [...]string{
		killRightAfterCreate:    "right after the claim was created",
		killCreateVolumeArrived: "when CreateVolume reached the driver",
		killDuringCreateVolume:  "during CreateVolume",
		killVolumeCreated:       "when the backend had made the volume",
		killClaimBound:          "when the claim was bound",
		killDuringUndo:          "during CreateVolume, then during the undo of its abandoned volume",
	}[m]
}

// deleteMoment is when a claim is deleted relative to the kill.
type deleteMoment int

const (
	// deleteSoonAfterCreate: a random delay after creation, whatever the
	// sidecar is doing by then; it may fall before or after the kill.
	deleteSoonAfterCreate deleteMoment = iota
	// deleteJustBeforeKill: the sidecar dies right after the deletion.
	deleteJustBeforeKill
	// deleteWhileDown: no sidecar runs when the claim is deleted.
	deleteWhileDown
	// deleteAfterRestart: a random delay after the sidecar came back.
	deleteAfterRestart
)

func (m deleteMoment) String() string {
	return [...]string{
		deleteSoonAfterCreate: "soon after creation",
		deleteJustBeforeKill:  "just before the kill",
		deleteWhileDown:       "while the sidecar was down",
		deleteAfterRestart:    "after the restart",
	}[m]
}

// chaosTrial is one claim's life: created, then deleted at some moment.
type chaosTrial struct {
	name string
	// createAt is the offset from the start of the round.
	createAt time.Duration
	deleteAt deleteMoment
	// deleteDelay counts from creation (deleteSoonAfterCreate), the kill
	// (deleteWhileDown, shorter than the round's down time) or the restart
	// (deleteAfterRestart).
	deleteDelay time.Duration
}

// chaosRound is one sidecar kill and restart with several claims in flight,
// or two with killDuringUndo.
type chaosRound struct {
	kill killMoment
	// killDelay is waited after the kill moment is seen; with
	// killDuringUndo, the first one's. The second kill follows the
	// driver's DeleteVolume at once.
	killDelay time.Duration
	// down is how long no sidecar runs, after each kill.
	down time.Duration
	// trials are in creation order; the last one's progress sets off the
	// kill.
	trials []chaosTrial
}

// planChaos draws the rounds from a seeded source, so that a failing run
// can be replayed with the same schedule. Every kill moment comes up about
// equally often. The plan always holds a claim whose CreateVolume is inside
// the driver when the sidecar dies and which is deleted before the sidecar
// is back: the case that leaks without provisioning protection, so the run
// with the gate off shows that the test can fail.
func planChaos(seed uint64, rounds, claimsPerRound int, createDelay time.Duration) []chaosRound {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	between := func(lo, hi time.Duration) time.Duration {
		if hi <= lo {
			return lo
		}
		return lo + time.Duration(rng.Int64N(int64(hi-lo)))
	}
	moments := make([]killMoment, rounds)
	for i := range moments {
		moments[i] = killMoment(i % killMoments)
	}
	rng.Shuffle(len(moments), func(i, j int) { moments[i], moments[j] = moments[j], moments[i] })

	plan := make([]chaosRound, rounds)
	for r := range plan {
		round := chaosRound{kill: moments[r], down: between(100*time.Millisecond, createDelay)}
		switch round.kill {
		case killRightAfterCreate:
			round.killDelay = between(0, 50*time.Millisecond)
		case killCreateVolumeArrived:
			round.killDelay = between(0, 20*time.Millisecond)
		case killDuringCreateVolume, killDuringUndo:
			round.killDelay = between(createDelay/10, createDelay*9/10)
		case killVolumeCreated, killClaimBound:
			round.killDelay = between(0, 100*time.Millisecond)
		}
		// All claims at once in some rounds, spread over more than one
		// CreateVolume in others.
		spread := between(0, createDelay+500*time.Millisecond)
		offsets := make([]time.Duration, claimsPerRound)
		for i := range offsets[:claimsPerRound-1] {
			offsets[i] = between(0, spread)
		}
		offsets[claimsPerRound-1] = spread
		slices.Sort(offsets)
		for i, at := range offsets {
			trial := chaosTrial{name: fmt.Sprintf("r%02d-c%d", r, i), createAt: at}
			switch {
			case i == claimsPerRound-1 && round.kill == killDuringUndo:
				// Deleted before the sidecar is back, so that the
				// restarted one has an abandoned volume to undo.
				trial.deleteAt = deleteMoment(1 + rng.IntN(2))
			case i == claimsPerRound-1:
				// The claim that sets off the kill lives until then.
				trial.deleteAt = deleteMoment(1 + rng.IntN(3))
			default:
				trial.deleteAt = deleteMoment(rng.IntN(4))
			}
			switch trial.deleteAt {
			case deleteSoonAfterCreate:
				trial.deleteDelay = between(0, createDelay+500*time.Millisecond)
			case deleteWhileDown:
				trial.deleteDelay = between(0, round.down)
			case deleteAfterRestart:
				trial.deleteDelay = between(0, time.Second)
			}
			round.trials = append(round.trials, trial)
		}
		plan[r] = round
	}

	leaky := func(r chaosRound) bool {
		last := r.trials[len(r.trials)-1].deleteAt
		inCreate := r.kill == killCreateVolumeArrived || r.kill == killDuringCreateVolume || r.kill == killDuringUndo
		return inCreate && (last == deleteJustBeforeKill || last == deleteWhileDown)
	}
	if !slices.ContainsFunc(plan, leaky) {
		for r := range plan {
			if plan[r].kill == killDuringCreateVolume {
				last := &plan[r].trials[len(plan[r].trials)-1]
				last.deleteAt, last.deleteDelay = deleteWhileDown, between(0, plan[r].down)
				break
			}
		}
	}
	return plan
}
