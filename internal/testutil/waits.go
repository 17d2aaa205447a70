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

// Consistently checks, every few milliseconds for the whole of d, that
// check keeps returning nil, and fails the test at the first error. It is
// for what must NOT happen: an absence can only be shown by letting real
// time pass, here the window in which the thing would have happened.
func Consistently(t testing.TB, d time.Duration, check func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var failed error
	_ = poll.Until(ctx, 5*time.Millisecond, func(context.Context) (bool, error) {
		failed = check()
		return failed != nil, nil
	}, nil)
	if failed != nil {
		t.Fatalf("%v", failed)
	}
}
