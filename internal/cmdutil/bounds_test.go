package cmdutil

import (
	"errors"
	"testing"
	"time"
)

// The bounds of numeric flags read as they always did: each value in its
// own notation.
func TestNumericFlagBounds(t *testing.T) {
	refused := func(err error, want string) {
		t.Helper()
		if err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	}
	refused(Positive("--timeout", -time.Second), "--timeout must be positive, got -1s")
	refused(Positive("--timeout", time.Duration(0)), "--timeout must be positive, got 0s")
	refused(NotNegative("--kube-api-burst", -3), "--kube-api-burst must not be negative, got -3")
	refused(NotNegative("--kube-api-events-qps", float32(-0.5)), "--kube-api-events-qps must not be negative, got -0.5")
	if err := NotNegative("--volume-retention", time.Duration(0)); err != nil {
		t.Errorf("zero is not negative: %v", err)
	}

	first, second := errors.New("first"), errors.New("second")
	if got := AppendFailed([]error{first}, nil, second, nil); len(got) != 2 || got[1] != second {
		t.Errorf("AppendFailed kept %v, want the failed checks after the others", got)
	}
}
