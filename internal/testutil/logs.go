package testutil

import (
	"context"
	"testing"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

// ErrorLogs returns the messages of the error-level entries a buffering
// ktesting logger has written so far.
func ErrorLogs(logs ktesting.Buffer) []string {
	var out []string
	for _, entry := range logs.Data() {
		if entry.Type == ktesting.LogError {
			out = append(out, entry.Message)
		}
	}
	return out
}

// Logs is what a test's logger has written, kept besides the test's log.
type Logs struct {
	buffer ktesting.Buffer
}

// Errors returns the messages of the error-level entries written so far.
func (l *Logs) Errors() []string { return ErrorLogs(l.buffer) }

// LoggingContext is a context whose logger writes to the test's log, at
// verbosity (0: ktesting's default), and keeps what it writes in Logs. It
// ends when the test's cleanups have run, after those registered later.
func LoggingContext(t testing.TB, verbosity int) (context.Context, *Logs) {
	opts := []ktesting.ConfigOption{ktesting.BufferLogs(true)}
	if verbosity > 0 {
		opts = append(opts, ktesting.Verbosity(verbosity))
	}
	logger := ktesting.NewLogger(t, ktesting.NewConfig(opts...))
	// Not t.Context(): that ends before cleanups, which may still log.
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	t.Cleanup(cancel)
	return ctx, &Logs{buffer: logger.GetSink().(ktesting.Underlier).GetBuffer()}
}
