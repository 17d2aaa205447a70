package devices

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Runner runs a command and returns its standard output. Implementations
// return a *CommandError when the command ran and failed, so callers can read
// the exit status (blkid's "nothing found" is exit status 2).
type Runner interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// CommandError is a failed command: its exit status and what it wrote to
// standard error, which is usually the only explanation the tools give.
type CommandError struct {
	Name string
	Args []string
	// ExitCode is the exit status, or -1 when the command did not exit
	// normally (not found, killed by the timeout, signalled).
	ExitCode int
	Stderr   string
	Err      error
}

func (e *CommandError) Error() string {
	msg := fmt.Sprintf("%s %s: %v", e.Name, strings.Join(e.Args, " "), e.Err)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += ": " + s
	}
	return msg
}

func (e *CommandError) Unwrap() error { return e.Err }

// ExitCode returns the exit status carried by err, if err is (or wraps) a
// *CommandError of a command that exited.
func ExitCode(err error) (int, bool) {
	var ce *CommandError
	if errors.As(err, &ce) && ce.ExitCode >= 0 {
		return ce.ExitCode, true
	}
	return 0, false
}

// maxStderr bounds the standard error kept in a CommandError: enough for any
// message of lsblk/blkid/wipefs, not a whole log if a tool goes wild.
const maxStderr = 4096

// ExecRunner runs commands with os/exec.
type ExecRunner struct {
	// Timeout bounds each command on top of ctx's own deadline; zero means
	// ctx alone. A hung lsblk (a dying disk can block it in the kernel)
	// must not stall the agent forever.
	Timeout time.Duration
}

// Run runs name with args in the C locale (so messages are the same on every
// node) and returns its standard output.
func (r ExecRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	// After the context kills the command, do not wait forever for
	// grandchildren that inherited its pipes.
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	ce := &CommandError{Name: name, Args: args, ExitCode: -1, Err: err}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		ce.ExitCode = ee.ExitCode()
	}
	if ctx.Err() != nil {
		// Say why the command was killed rather than "signal: killed".
		ce.Err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	s := stderr.String()
	if len(s) > maxStderr {
		s = s[:maxStderr] + "..."
	}
	ce.Stderr = s
	return stdout.Bytes(), ce
}
