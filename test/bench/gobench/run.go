package gobench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// Run runs go test -bench from the repository root and parses
// its output. A failing benchmark or package gives the results of the
// others along with an error.
func Run(ctx context.Context, opts Options) (*Results, error) {
	if len(opts.Packages) == 0 {
		opts.Packages = Packages
	}
	root, err := framework.RepoRoot()
	if err != nil {
		return nil, err
	}
	args := opts.args()
	var out bytes.Buffer
	writers := []io.Writer{&out}
	if opts.RawOutput != "" {
		f, err := os.Create(opts.RawOutput)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		writers = append(writers, f)
	}
	if opts.Progress != nil {
		writers = append(writers, opts.Progress)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Stdout = io.MultiWriter(writers...)
	cmd.Stderr = cmd.Stdout
	// A group of its own, so that cancelling stops the test binaries go
	// test started too, and Ctrl-C reaches it only through ctx.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	runErr := cmd.Run()

	res := parseGoBench(&out)
	res.Command = "go " + shellJoin(args)
	res.Count = max(opts.Count, 1)
	res.Duration = time.Since(start)
	if opts.RawOutput != "" {
		res.RawOutput = filepath.Base(opts.RawOutput)
	}
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("go benchmarks stopped: %w", context.Cause(ctx))
	case runErr != nil:
		if len(res.Failures) == 0 {
			res.Failures = append(res.Failures, "go test: "+runErr.Error())
		}
		return res, fmt.Errorf("go test failed (%v): %s", runErr, strings.Join(res.Failures, "; "))
	case len(res.Results) == 0:
		return res, errors.New("go test ran no benchmark")
	}
	return res, nil
}

// shellJoin quotes the arguments that need it, for a command to paste.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " ^$*?'\"\\|&;<>()[]{}") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
