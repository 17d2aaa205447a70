package capacity

import (
	"time"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// phaseWindows are when the phases ran, to attribute the sidecars' writes
// in the audit log. Only one sidecar runs at a time, so the sidecar's user
// names the writes of the phase's process.
type phaseWindows struct {
	convergence, churn, quiet, moving measure.Window
}

// objectWrite is one write request of the sidecar to a CSIStorageCapacity
// object.
type objectWrite struct {
	at time.Time
	ok bool
}

// isObjectWrite tells a sidecar's create, update, patch or delete of a
// CSIStorageCapacity.
func isObjectWrite(ev *framework.AuditEvent, sidecarUser string) bool {
	return ev.ObjectRef != nil && ev.ObjectRef.Resource == "csistoragecapacities" &&
		measure.IsWrite(ev.Verb) && measure.ClientOf(ev, sidecarUser) == measure.ClientSidecar
}

// countWrites reads the audit log once and fills in the writes of every
// phase.
func (r *runner) countWrites() error {
	var writes []objectWrite
	err := measure.ScanAudit(r.stack.Cluster().AuditLogPath(), func(ev *framework.AuditEvent) {
		if ev.Stage != framework.AuditStageResponseComplete || !isObjectWrite(ev, r.stack.SidecarUser()) {
			return
		}
		code := measure.StatusCode(ev)
		writes = append(writes, objectWrite{at: ev.RequestReceived, ok: code >= 200 && code < 300})
	})
	if err != nil {
		return err
	}
	w := r.windows
	r.res.Convergence.SidecarWrites, _ = countIn(writes, w.convergence)
	r.res.Convergence.FirstWrite = firstIn(writes, w.convergence)
	r.res.Churn.SidecarWrites, _ = countIn(writes, w.churn)
	r.res.Churn.FirstWrite = firstIn(writes, w.churn)
	r.res.Quiet.Writes, r.res.Quiet.Refused = countIn(writes, w.quiet)
	_, r.res.Moving.Refused = countIn(writes, w.moving)
	r.res.Moving.WritesPerPoll = perPoll(writes, w.moving, r.opts.PollInterval)
	return nil
}

// countIn counts the successful and the failed writes in a window.
func countIn(writes []objectWrite, w measure.Window) (ok, failed int) {
	for _, x := range writes {
		if !w.Contains(x.at) {
			continue
		}
		if x.ok {
			ok++
		} else {
			failed++
		}
	}
	return ok, failed
}

// firstIn is the time from the window's start to its first successful
// write, 0 for none.
func firstIn(writes []objectWrite, w measure.Window) time.Duration {
	var first time.Time
	for _, x := range writes {
		if x.ok && w.Contains(x.at) && (first.IsZero() || x.at.Before(first)) {
			first = x.at
		}
	}
	if first.IsZero() {
		return 0
	}
	return first.Sub(w.From)
}

// perPoll counts the successful writes in each whole poll interval of the
// window, from its start.
func perPoll(writes []objectWrite, w measure.Window, poll time.Duration) []int {
	n := int(w.To.Sub(w.From) / poll)
	if n <= 0 {
		return nil
	}
	out := make([]int, n)
	for _, x := range writes {
		if !x.ok || !w.Contains(x.at) {
			continue
		}
		if i := int(x.at.Sub(w.From) / poll); i < n {
			out[i]++
		}
	}
	return out
}
