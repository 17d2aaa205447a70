package testutil

import (
	"testing"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

func TestErrorLogsKeepsOnlyErrors(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	logger.Info("fine")
	logger.Error(nil, "broken")
	buf := logger.GetSink().(ktesting.Underlier).GetBuffer()
	if got := ErrorLogs(buf); len(got) != 1 || got[0] != "broken" {
		t.Errorf("got %q, want [broken]", got)
	}
}

// The context's logger is the one whose errors Logs keeps, and the context
// lives until the test's cleanups.
func TestLoggingContextKeepsTheErrorsOfItsLogger(t *testing.T) {
	var ctx interface{ Err() error }
	t.Run("test", func(t *testing.T) {
		c, logs := LoggingContext(t, 4)
		ctx = c
		klog.FromContext(c).Error(nil, "broken")
		klog.FromContext(c).V(4).Info("detail")
		if got := logs.Errors(); len(got) != 1 || got[0] != "broken" {
			t.Errorf("errors %q, want [broken]", got)
		}
		if c.Err() != nil {
			t.Error("the context ended before the test")
		}
	})
	if ctx.Err() == nil {
		t.Error("the context outlived the test")
	}
}
