package provisionstate

import (
	"fmt"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"k8s.io/apimachinery/pkg/types"
)

func TestDriverErrorsKeepTheLastErrorPerClaimUntilForgotten(t *testing.T) {
	e := NewDriverErrors(0)
	var told []types.UID
	e.Subscribe(func(uid types.UID) { told = append(told, uid) })

	e.Record("a", DriverError{Code: codes.Unavailable, Message: "busy"})
	e.Record("a", DriverError{Code: codes.OutOfRange, Message: "too big"})
	if got, ok := e.Last("a"); !ok || got.Code != codes.OutOfRange || got.Message != "too big" {
		t.Errorf("Last(a) = %+v, %v; want the second error", got, ok)
	}
	if _, ok := e.Last("b"); ok {
		t.Error("a claim without an error has one")
	}
	e.Forget("a")
	e.Forget("a") // nothing left: no notice
	if _, ok := e.Last("a"); ok {
		t.Error("a forgotten error is still there")
	}
	if want := []types.UID{"a", "a", "a"}; fmt.Sprint(told) != fmt.Sprint(want) {
		t.Errorf("told %v, want %v: every record and the one forget that dropped something", told, want)
	}
}

func TestDriverErrorsDropTheOldestPastTheLimit(t *testing.T) {
	e := NewDriverErrors(2)
	e.Record("a", DriverError{Code: codes.Internal})
	e.Record("b", DriverError{Code: codes.Internal})
	// Recording a again makes it the newest: b is the oldest now.
	e.Record("a", DriverError{Code: codes.Aborted})
	e.Record("c", DriverError{Code: codes.Internal})
	if e.Len() != 2 {
		t.Fatalf("%d kept, want the limit of 2", e.Len())
	}
	if _, ok := e.Last("b"); ok {
		t.Error("the oldest record (b) was kept past the limit")
	}
	for _, uid := range []types.UID{"a", "c"} {
		if _, ok := e.Last(uid); !ok {
			t.Errorf("%s was dropped", uid)
		}
	}
}

func TestDriverErrorsAreSafeForConcurrentUse(t *testing.T) {
	e := NewDriverErrors(50)
	e.Subscribe(func(uid types.UID) { e.Last(uid) })
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				uid := types.UID(fmt.Sprintf("%d-%d", w, i%70))
				e.Record(uid, DriverError{Code: codes.Unavailable})
				e.Last(uid)
				if i%3 == 0 {
					e.Forget(uid)
				}
			}
		})
	}
	wg.Wait()
	if n := e.Len(); n > 50 {
		t.Errorf("%d kept, more than the limit of 50", n)
	}
}
