package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/csi-protect/external-provisioner/internal/testutil/poll"
)

// pollInterval is how often start-up and state checks are retried. Short,
// because every component here starts in seconds and tests wait on them.
const pollInterval = 200 * time.Millisecond

// waitUntil calls check every pollInterval until it returns true, the process
// (if any) exits, or ctx ends. An error from check only means "not yet"; the
// last one is reported if the wait fails. what names the condition in errors.
func waitUntil(ctx context.Context, what string, proc *Process, check poll.Cond) error {
	var exited func() error
	if proc != nil {
		exited = func() error {
			if done, exitErr := proc.Exited(); done {
				return fmt.Errorf("%s exited (%s) before %s%s", proc.Name(), exitString(exitErr), what, logTail(proc.LogFile(), 20))
			}
			return nil
		}
	}
	err := poll.Until(ctx, pollInterval, check, exited)
	var expired *poll.Expired
	if !errors.As(err, &expired) {
		return err
	}
	msg := fmt.Sprintf("timed out waiting for %s", what)
	if errors.Is(ctx.Err(), context.Canceled) {
		msg = fmt.Sprintf("canceled while waiting for %s", what)
	}
	if expired.Last != nil {
		msg += fmt.Sprintf(" (last error: %v)", expired.Last)
	}
	tail := ""
	if proc != nil {
		tail = logTail(proc.LogFile(), 20)
	}
	return fmt.Errorf("%s: %w%s", msg, expired.Cause, tail)
}

// httpOK returns a check that GETs url with client and succeeds on status 200
// with a body containing want.
func httpOK(client *http.Client, url, bearer, want string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(want)) {
			return false, fmt.Errorf("GET %s: %d %s", url, resp.StatusCode, summarizeHealth(body))
		}
		return true, nil
	}
}

// summarizeHealth shortens a health endpoint's answer for an error message:
// kube-apiserver lists every check, and only the failing ("[-]") ones say
// why it is not ready.
func summarizeHealth(body []byte) string {
	var failing []string
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "[-]") {
			failing = append(failing, line)
		}
	}
	out := strings.TrimSpace(string(body))
	if len(failing) > 0 {
		out = strings.Join(failing, "; ")
	}
	if len(out) > 300 {
		out = out[:300] + "..."
	}
	return out
}

// fileContains returns a check that succeeds once the file holds want.
func fileContains(path, want string) func(context.Context) (bool, error) {
	return func(context.Context) (bool, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return false, err
		}
		return bytes.Contains(data, []byte(want)), nil
	}
}

// logTail formats the last n lines of a log file for an error message, so a
// failed start explains itself without opening the work dir.
func logTail(path string, n int) string {
	if path == "" {
		return ""
	}
	lines := tailLines(path, n)
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("\nlast lines of %s:\n  %s", path, strings.Join(lines, "\n  "))
}

// tailLines returns up to n last lines of a file, reading at most its last
// 64 KiB so a large log costs nothing.
func tailLines(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	const window = 64 << 10
	if st, err := f.Stat(); err == nil && st.Size() > window {
		if _, err := f.Seek(-window, io.SeekEnd); err != nil {
			return nil
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// TailLog returns the last n lines of a log file written by a Process, for
// printing when a test or the demo fails.
func TailLog(path string, n int) []string { return tailLines(path, n) }
