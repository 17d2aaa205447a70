package devices

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestExecRunner(t *testing.T) {
	ctx := context.Background()
	out, err := ExecRunner{}.Run(ctx, "sh", "-c", "echo out; echo err >&2")
	if err != nil || string(out) != "out\n" {
		t.Fatalf("got %q, %v", out, err)
	}

	_, err = ExecRunner{}.Run(ctx, "sh", "-c", "echo partial; echo 'wipefs: error: /dev/x: probing initialization failed' >&2; exit 3")
	var ce *CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %T %v, want *CommandError", err, err)
	}
	if code, ok := ExitCode(err); !ok || code != 3 {
		t.Errorf("ExitCode = %d, %v", code, ok)
	}
	if !strings.Contains(err.Error(), "probing initialization failed") || !strings.Contains(err.Error(), "sh -c") {
		t.Errorf("error lacks stderr or command: %v", err)
	}

	// The Runner's own timeout, and the context's, both stop the command.
	start := time.Now()
	_, err = ExecRunner{Timeout: 100 * time.Millisecond}.Run(ctx, "sleep", "10")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout: err = %v", err)
	}
	if _, ok := ExitCode(err); ok {
		t.Error("a killed command reported an exit status")
	}
	tctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = ExecRunner{}.Run(tctx, "sleep", "10")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ctx timeout: err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timeouts took %v", d)
	}

	_, err = ExecRunner{}.Run(ctx, "/nonexistent/lsblk")
	if _, ok := ExitCode(err); err == nil || ok {
		t.Errorf("missing command: %v", err)
	}
}
