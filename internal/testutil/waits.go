package testutil

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/internal/testutil/poll"
)

// Eventually polls cond until it holds, or fails the test after timeout.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	Await(t, timeout, what, func() error {
		if cond() {
			return nil
		}
		return errNotYet
	})
}

var errNotYet = errors.New("not yet")

// Await polls check until it returns nil, or fails the test after timeout
// with check's last error, which says what it saw instead.
func Await(t testing.TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	// Not t.Context(): that ends before cleanups, which may wait too.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := poll.Until(ctx, 5*time.Millisecond, func(context.Context) (bool, error) {
		err := check()
		return err == nil, err
	}, nil)
	if err == nil {
		return
	}
	var expired *poll.Expired
	if errors.As(err, &expired) && expired.Last != nil && expired.Last != errNotYet {
		t.Fatalf("timed out waiting for %s: %v", what, expired.Last)
		return
	}
	t.Fatalf("timed out waiting for %s", what)
}
