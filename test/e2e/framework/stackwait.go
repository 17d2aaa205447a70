package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// WaitFor calls cond every pollInterval until it returns true, a component of
// the stack exits on its own, or timeout (or ctx) ends. An error from cond
// only means "not yet"; the last one is reported if the wait fails, so make
// it say what was seen. A component that died is the likelier cause of a
// wait that never ends, so that is checked on every round and reported
// first.
func (s *Stack) WaitFor(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	var last error
	for {
		ok, err := cond(ctx)
		if ok {
			s.logger.V(2).Info("Waited", "for", what, "duration", time.Since(start).Round(time.Millisecond))
			return nil
		}
		if err != nil {
			last = err
		}
		if err := s.CheckAlive(); err != nil {
			return fmt.Errorf("while waiting for %s: %w", what, err)
		}
		select {
		case <-ctx.Done():
			// Say which limit ended the wait: this one, or the caller's.
			msg := fmt.Sprintf("gave up waiting for %s after %s", what, timeout)
			if parent.Err() != nil {
				msg = fmt.Sprintf("stopped waiting for %s: %v", what, context.Cause(parent))
			}
			if last != nil {
				msg += fmt.Sprintf(" (last: %v)", last)
			}
			return errors.New(msg)
		case <-time.After(pollInterval):
		}
	}
}

// LogFiles returns the log of every component: sidecars, driver,
// kube-controller-manager, kube-apiserver, etcd.
func (s *Stack) LogFiles() []string {
	var logs []string
	for _, p := range s.processes() {
		if p.LogFile() != "" {
			logs = append(logs, p.LogFile())
		}
	}
	return logs
}

// maxLogLine is where WriteLogTails cuts long lines: the sidecar dumps whole
// objects at -v=4, and the start of a line is enough to see what happened.
const maxLogLine = 400

// WriteLogTails writes the last n lines of each component's log to w, for a
// failed test or demo. The full logs stay in the work dir.
func (s *Stack) WriteLogTails(w io.Writer, n int) {
	for _, path := range s.LogFiles() {
		lines := tailLines(path, n)
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n--- last %d lines of %s\n", len(lines), path)
		for _, l := range lines {
			if len(l) > maxLogLine {
				l = l[:maxLogLine] + " [...]"
			}
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}
