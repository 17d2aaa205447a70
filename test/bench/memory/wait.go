package memory

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// scrapeTimeout bounds one read of the sidecar's metrics.
const scrapeTimeout = 5 * time.Second

// scrapeGoMemory reads the Go runtime's figures from the sidecar's
// metrics.
func scrapeGoMemory(ctx context.Context, url string) (measure.GoMemory, error) {
	m, err := measure.Scrape(ctx, url, scrapeTimeout)
	if err != nil {
		return measure.GoMemory{}, err
	}
	return m.GoMemory()
}

// queueDepth is the sum of the sidecar's work queue depths. A scrape
// without workqueue_depth is an error, not an idle sidecar.
func queueDepth(ctx context.Context, url string) (float64, error) {
	m, err := measure.Scrape(ctx, url, scrapeTimeout)
	if err != nil {
		return 0, err
	}
	return m.Sum("workqueue_depth", nil)
}

const (
	// logPoll is how often waitLogLine looks at the log: the CPU time
	// read when the line appears is late by up to this.
	logPoll = 50 * time.Millisecond
	// quietWindow and quietCPU define idle: less than quietCPU of CPU
	// time (5% of a core) over the last quietWindow.
	quietWindow = time.Second
	quietCPU    = 50 * time.Millisecond
)

// waitLogLine waits until a process's log has a line containing msg and
// returns the time the line gives and the process's CPU time when the line
// was seen.
func waitLogLine(ctx context.Context, s *framework.Stack, timeout time.Duration, what, path, msg string, pid int) (time.Time, time.Duration, error) {
	var (
		offset  int64
		partial []byte
		at      time.Time
		cpu     time.Duration
		cpuErr  error
	)
	err := wait.PollUntilContextTimeout(ctx, logPoll, timeout, true, func(context.Context) (bool, error) {
		lines, next, err := measure.ReadNewLines(path, offset, partial)
		if err == nil {
			offset, partial = next, lines[len(lines)-1]
			for _, line := range lines[:len(lines)-1] {
				if bytes.Contains(line, []byte(msg)) {
					cpu, cpuErr = measure.ProcessCPU(pid)
					at = lineTime(line)
					return true, nil
				}
			}
		}
		// A component that died is why the line never comes.
		if err := s.CheckAlive(); err != nil {
			return false, fmt.Errorf("while waiting for %s: %w", what, err)
		}
		return false, nil
	})
	if wait.Interrupted(err) {
		// The caller's context ended (a sidecar that may die did), or
		// the wait's own timeout.
		if ctx.Err() != nil {
			return time.Time{}, 0, fmt.Errorf("stopped waiting for %s: %w", what, context.Cause(ctx))
		}
		return time.Time{}, 0, fmt.Errorf("gave up waiting for %s after %s: %w", what, timeout, err)
	}
	if err != nil {
		return time.Time{}, 0, err
	}
	return at, cpu, cpuErr
}

// lineTime is the time in a klog line's header, or now for a line without
// one.
func lineTime(line []byte) time.Time {
	now := time.Now()
	if t, ok := measure.KlogTime(line, now.Year()); ok {
		return t
	}
	return now
}

// waitQuiet waits until a process has used less than quietCPU over
// quietWindow and ready (if any) holds, and returns when the quiet window
// began.
func waitQuiet(ctx context.Context, s *framework.Stack, timeout time.Duration, what string, pid int, ready func(context.Context) (bool, error)) (time.Time, error) {
	type sample struct {
		at  time.Time
		cpu time.Duration
	}
	var samples []sample
	var since time.Time
	err := s.WaitFor(ctx, timeout, what, func(ctx context.Context) (bool, error) {
		cpu, err := measure.ProcessCPU(pid)
		if err != nil {
			return false, err
		}
		now := sample{time.Now(), cpu}
		samples = append(samples, now)
		// Keep the newest sample at least quietWindow old, and the newer.
		for len(samples) > 1 && now.at.Sub(samples[1].at) >= quietWindow {
			samples = samples[1:]
		}
		first := samples[0]
		if now.at.Sub(first.at) < quietWindow {
			return false, fmt.Errorf("watched for %s", now.at.Sub(first.at).Round(time.Millisecond))
		}
		if used := now.cpu - first.cpu; used >= quietCPU {
			return false, fmt.Errorf("%s of CPU in the last %s", used, now.at.Sub(first.at).Round(time.Millisecond))
		}
		if ready != nil {
			if ok, err := ready(ctx); !ok {
				return false, err
			}
		}
		since = first.at
		return true, nil
	})
	return since, err
}
