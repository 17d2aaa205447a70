package capacity

import (
	"context"
	"fmt"
	"time"

	"github.com/csi-protect/external-provisioner/internal/mockdriver"
)

// quietWindow is how long the quiet phase watches a new sidecar: its
// start-up pass, which looks at every object, and its first poll one
// interval later, with half an interval for the poll's work.
func (o Options) quietWindow() time.Duration { return o.PollInterval * 3 / 2 }

// quietPhase starts a sidecar at the default budget on objects that are all
// current while nothing moves, and lets it run through its start-up pass
// and a poll: any write it makes is one nothing asked for. Its writes are
// counted from the audit log at the end of the run.
func (r *runner) quietPhase(ctx context.Context) error {
	sc, err := r.startSidecar(ctx)
	if err != nil {
		return err
	}
	defer r.stopSidecar(sc, "quiet")
	r.res.Quiet.Window = r.opts.quietWindow()
	r.windows.quiet.From = sc.started
	r.windows.quiet.To = sc.started.Add(r.res.Quiet.Window)
	select {
	case <-time.After(time.Until(r.windows.quiet.To)):
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	if err := r.stack.CheckAlive(); err != nil {
		return err
	}
	still := newDriverModel(r.opts.Classes, mockdriver.Moving{})
	missing, wrong, extra := still.mismatch(time.Now(), wantedKeys(r.opts.Classes, r.nodes), r.watch.snapshot())
	if missing+wrong+extra > 0 {
		return fmt.Errorf("after the quiet poll, %d objects missing, %d with another capacity, %d unwanted", missing, wrong, extra)
	}
	return nil
}
