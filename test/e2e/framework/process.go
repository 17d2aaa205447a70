package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// DefaultStopTimeout is how long Process.Stop waits after SIGTERM before it
// sends SIGKILL, when ProcessOptions.StopTimeout is zero. kube-apiserver
// drains its connections on SIGTERM and can take several seconds.
const DefaultStopTimeout = 15 * time.Second

// ProcessOptions describes a program run by StartProcess.
type ProcessOptions struct {
	// Name labels log lines and errors. Defaults to the base name of Path.
	Name string
	// Path is the program to run.
	Path string
	// Args are the arguments, without the program name.
	Args []string
	// Env is added to the environment this process inherits.
	Env []string
	// Dir is the working directory. Empty means the current one.
	Dir string
	// LogFile receives stdout and stderr. It is appended to, with a header
	// line per start, so the output before and after a Restart stays in one
	// file. Empty discards the output.
	LogFile string
	// StopTimeout bounds the wait after SIGTERM in Stop. Defaults to
	// DefaultStopTimeout.
	StopTimeout time.Duration
	// Hostname, if set, runs the program in a UTS namespace of its own
	// with this host name, as a pod's containers see the pod's name. It
	// needs root (CAP_SYS_ADMIN); see OwnHostnames.
	Hostname string
}

// OwnHostnames reports whether processes can get a host name of their own
// (ProcessOptions.Hostname): only root may make a UTS namespace.
func OwnHostnames() bool { return os.Geteuid() == 0 }

// hostnameCommand runs path under /bin/sh, which names the new UTS
// namespace before it execs path: Go cannot run code in the child between
// fork and exec, and the process keeps its PID through the exec, so Stop
// and Kill still reach it.
func hostnameCommand(hostname, path string, args []string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", append([]string{"-c", `hostname "$0" && exec "$@"`, hostname, path}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUTS}
	return cmd
}

// Process is a running (or exited) program started by StartProcess. Its
// methods are safe for concurrent use.
type Process struct {
	opts   ProcessOptions
	logger klog.Logger

	mu  sync.Mutex
	cur *incarnation
}

// incarnation is one start of the program; Restart replaces it.
type incarnation struct {
	cmd  *exec.Cmd
	done chan struct{}
	// err is the result of cmd.Wait, valid once done is closed.
	err error
	// stopRequested is set (under Process.mu) once Stop, Kill or Restart
	// signalled this incarnation, so an exit it caused is not reported as
	// a crash.
	stopRequested bool
}

// StartProcess starts the program described by opts. The context provides the
// logger only: the process lives until Stop or Kill, so that one test step's
// context ending does not take down a driver the next step still needs.
func StartProcess(ctx context.Context, opts ProcessOptions) (*Process, error) {
	if opts.Path == "" {
		return nil, errors.New("ProcessOptions.Path is required")
	}
	if opts.Name == "" {
		opts.Name = filepath.Base(opts.Path)
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = DefaultStopTimeout
	}
	p := &Process{
		opts:   opts,
		logger: klog.FromContext(ctx).WithValues("process", opts.Name),
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.startLocked(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Process) startLocked() error {
	cmd := exec.Command(p.opts.Path, p.opts.Args...)
	if p.opts.Hostname != "" {
		cmd = hostnameCommand(p.opts.Hostname, p.opts.Path, p.opts.Args)
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.Dir = p.opts.Dir
	if len(p.opts.Env) > 0 {
		cmd.Env = append(os.Environ(), p.opts.Env...)
	}
	// A group of its own lets Stop and Kill signal anything the program
	// forks, and keeps a terminal's Ctrl-C from reaching it before the
	// owner had a chance to tear down in order.
	cmd.SysProcAttr.Setpgid = true
	// If the test binary or demo dies without cleaning up (a go test
	// timeout, a SIGKILL), take the process with it instead of leaving a
	// control plane holding ports. The kernel ties this to the starting OS
	// thread, which the Go runtime only retires when a goroutine exits
	// while locked to it; nothing here does that.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	var logFile *os.File
	if p.opts.LogFile != "" {
		f, err := os.OpenFile(p.opts.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("open log of %s: %w", p.opts.Name, err)
		}
		fmt.Fprintf(f, "=== %s start: %s %s\n", time.Now().Format(time.RFC3339Nano), p.opts.Path, strings.Join(p.opts.Args, " "))
		// The child gets the descriptor itself, so no copying goroutine
		// is needed and output written just before a crash is not lost.
		cmd.Stdout, cmd.Stderr = f, f
		logFile = f
	}
	err := cmd.Start()
	if logFile != nil {
		// The child holds its own copy of the descriptor.
		logFile.Close()
	}
	if err != nil {
		return fmt.Errorf("start %s: %w", p.opts.Name, err)
	}
	inc := &incarnation{cmd: cmd, done: make(chan struct{})}
	go func() {
		inc.err = cmd.Wait()
		close(inc.done)
	}()
	p.cur = inc
	p.logger.V(1).Info("Started process", "pid", cmd.Process.Pid, "path", p.opts.Path, "args", p.opts.Args, "logFile", p.opts.LogFile)
	return nil
}

func (p *Process) current() *incarnation {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur
}

// Name returns the name used in logs and errors.
func (p *Process) Name() string { return p.opts.Name }

// LogFile returns the path of the output file, or "" if output is discarded.
func (p *Process) LogFile() string { return p.opts.LogFile }

// Pid returns the process id of the current incarnation.
func (p *Process) Pid() int { return p.current().cmd.Process.Pid }

// Done is closed when the current incarnation exits.
func (p *Process) Done() <-chan struct{} { return p.current().done }

// Exited reports whether the current incarnation has exited and, if so, the
// error from waiting for it (nil for exit status 0).
func (p *Process) Exited() (bool, error) {
	inc := p.current()
	select {
	case <-inc.done:
		return true, inc.err
	default:
		return false, nil
	}
}

// UnexpectedExit returns an error describing how the current incarnation
// ended if it exited without Stop, Kill or Restart being called: a crash, a
// fatal error, or an exit the program chose. It returns nil while the process
// runs and after an exit that was asked for.
func (p *Process) UnexpectedExit() error {
	p.mu.Lock()
	inc := p.cur
	requested := inc.stopRequested
	p.mu.Unlock()
	select {
	case <-inc.done:
	default:
		return nil
	}
	if requested {
		return nil
	}
	return fmt.Errorf("%s (pid %d) exited unexpectedly (%s)%s", p.opts.Name, inc.cmd.Process.Pid, exitString(inc.err), logTail(p.opts.LogFile, 20))
}

// Wait blocks until the current incarnation exits or ctx ends, and returns its
// exit error (nil for status 0) or the context's error.
func (p *Process) Wait(ctx context.Context) error {
	inc := p.current()
	select {
	case <-inc.done:
		return inc.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Signal sends sig to the process group of the current incarnation, if it is
// still running.
func (p *Process) Signal(sig syscall.Signal) error {
	return signalGroup(p.current(), sig)
}

// Stop sends SIGTERM and waits for the process to exit, sending SIGKILL after
// StopTimeout. It returns an error only if the process could not be ended; an
// exit caused by the signal is the expected outcome. Stopping an exited
// process does nothing.
func (p *Process) Stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopLocked(syscall.SIGTERM)
}

// Kill sends SIGKILL and waits for the process to exit: a crash, as far as the
// program can tell, with no chance to clean up.
func (p *Process) Kill() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopLocked(syscall.SIGKILL)
}

// Restart stops the process if it is running (SIGTERM, then SIGKILL after the
// timeout) and starts it again with the same options.
func (p *Process) Restart(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.stopLocked(syscall.SIGTERM); err != nil {
		return err
	}
	p.logger = klog.FromContext(ctx).WithValues("process", p.opts.Name)
	return p.startLocked()
}

func (p *Process) stopLocked(sig syscall.Signal) error {
	inc := p.cur
	select {
	case <-inc.done:
		return nil
	default:
	}
	inc.stopRequested = true
	pid := inc.cmd.Process.Pid
	p.logger.V(1).Info("Stopping process", "pid", pid, "signal", sig.String())
	if err := signalGroup(inc, sig); err != nil {
		return err
	}
	if sig != syscall.SIGKILL {
		select {
		case <-inc.done:
			p.logger.V(1).Info("Process exited", "pid", pid, "result", exitString(inc.err))
			return nil
		case <-time.After(p.opts.StopTimeout):
			p.logger.Info("Process ignored the signal, killing it", "pid", pid, "signal", sig.String(), "timeout", p.opts.StopTimeout)
			if err := signalGroup(inc, syscall.SIGKILL); err != nil {
				return err
			}
		}
	}
	// SIGKILL cannot be caught; the bound only guards against a process
	// stuck in the kernel, which we report rather than hang on.
	select {
	case <-inc.done:
		p.logger.V(1).Info("Process exited", "pid", pid, "result", exitString(inc.err))
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.opts.Name, pid)
	}
}

// signalGroup signals the whole process group, so helpers the program forked
// do not outlive it. The group id is the leader's pid, which cannot be reused
// before the waiter goroutine reaps the leader.
func signalGroup(inc *incarnation, sig syscall.Signal) error {
	select {
	case <-inc.done:
		return nil
	default:
	}
	err := syscall.Kill(-inc.cmd.Process.Pid, sig)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %s to pid %d: %w", sig, inc.cmd.Process.Pid, err)
	}
	return nil
}

func exitString(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
