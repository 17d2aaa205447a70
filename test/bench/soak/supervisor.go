package soak

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// restartDelay is how long an exited process stays down before it is
// started again, as a kubelet restarts a container of a Pod.
const restartDelay = 2 * time.Second

// Exit is one end of a supervised process.
type Exit struct {
	Process string        `json:"process"`
	At      time.Duration `json:"at"`
	// Cause is how it ended: "signal: killed" for a fault's SIGKILL,
	// the exit status for an exit the program chose.
	Cause string `json:"cause"`
}

// supervisor restarts whatever it watches once it exits, for whatever
// reason, as a kubelet does for a Pod with restartPolicy Always, and records
// each exit.
type supervisor struct {
	start time.Time
	wg    sync.WaitGroup

	mu    sync.Mutex
	exits []Exit
}

func newSupervisor(start time.Time) *supervisor { return &supervisor{start: start} }

// watch restarts proc after each exit until ctx ends.
func (s *supervisor) watch(ctx context.Context, proc *framework.Process) {
	logger := klog.FromContext(ctx).WithValues("process", proc.Name())
	s.wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-proc.Done():
			}
			_, err := proc.Exited()
			cause := "exit status 0"
			if err != nil {
				cause = err.Error()
			}
			s.mu.Lock()
			s.exits = append(s.exits, Exit{Process: proc.Name(), At: time.Since(s.start), Cause: cause})
			s.mu.Unlock()
			logger.Info("Process exited, restarting it", "cause", cause, "delay", restartDelay)
			if err := wait.PollUntilContextCancel(ctx, restartDelay, false, func(ctx context.Context) (bool, error) {
				if err := proc.Restart(ctx); err != nil {
					logger.Error(err, "Restart failed, trying again")
					return false, nil
				}
				return true, nil
			}); err != nil {
				return
			}
		}
	})
}

// stop waits for the watches, whose context the caller ended.
func (s *supervisor) stop() []Exit {
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Exit(nil), s.exits...)
}
