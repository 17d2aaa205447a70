package provisionstate

import (
	"container/list"
	"sync"

	"google.golang.org/grpc/codes"
	"k8s.io/apimachinery/pkg/types"
)

// DriverError is how the driver last answered a claim's CreateVolume when
// it refused it: the gRPC code and the status message.
type DriverError struct {
	Code    codes.Code
	Message string
}

// DefaultDriverErrorsKept bounds DriverErrors: far more claims than ever
// fail at once, about 2 MB at the most.
const DefaultDriverErrorsKept = 10000

// DriverErrors remembers, per claim UID, the last error the driver answered
// CreateVolume with, which the provisioner records and the claim conditions
// controller (pkg/claimconditions) reports on the claim: neither reads the
// other. A claim's error is forgotten once its volume is made or the claim
// is deleted; past Limit claims the oldest record goes, so that claims
// nobody forgets (another sidecar took them over) cannot grow it without
// end. Memory only: after a restart the next attempt tells again.
type DriverErrors struct {
	limit int

	mu          sync.Mutex
	byUID       map[types.UID]*list.Element
	order       *list.List // of *driverErrorEntry, oldest first
	subscribers []func(uid types.UID)
}

type driverErrorEntry struct {
	uid types.UID
	err DriverError
}

// NewDriverErrors returns an empty record of at most limit claims
// (DefaultDriverErrorsKept when limit is not positive).
func NewDriverErrors(limit int) *DriverErrors {
	if limit <= 0 {
		limit = DefaultDriverErrorsKept
	}
	return &DriverErrors{limit: limit, byUID: map[types.UID]*list.Element{}, order: list.New()}
}

// Record sets the last error of a claim and tells the subscribers, even
// when it is the same error: what goes with it (an infeasible hold) may
// have changed.
func (e *DriverErrors) Record(uid types.UID, err DriverError) {
	e.mu.Lock()
	if el, ok := e.byUID[uid]; ok {
		el.Value.(*driverErrorEntry).err = err
		e.order.MoveToBack(el)
	} else {
		e.byUID[uid] = e.order.PushBack(&driverErrorEntry{uid: uid, err: err})
		for e.order.Len() > e.limit {
			oldest := e.order.Front()
			e.order.Remove(oldest)
			delete(e.byUID, oldest.Value.(*driverErrorEntry).uid)
		}
	}
	subscribers := e.subscribers
	e.mu.Unlock()
	for _, notify := range subscribers {
		notify(uid)
	}
}

// Forget drops the error of a claim, telling the subscribers if there was
// one.
func (e *DriverErrors) Forget(uid types.UID) {
	e.mu.Lock()
	el, ok := e.byUID[uid]
	if ok {
		e.order.Remove(el)
		delete(e.byUID, uid)
	}
	subscribers := e.subscribers
	e.mu.Unlock()
	if !ok {
		return
	}
	for _, notify := range subscribers {
		notify(uid)
	}
}

// Last is the last error recorded for a claim.
func (e *DriverErrors) Last(uid types.UID) (DriverError, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	el, ok := e.byUID[uid]
	if !ok {
		return DriverError{}, false
	}
	return el.Value.(*driverErrorEntry).err, true
}

// Len is the number of claims with an error recorded.
func (e *DriverErrors) Len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.byUID)
}

// Subscribe has fn called, outside the lock, after every change.
func (e *DriverErrors) Subscribe(fn func(uid types.UID)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.subscribers = append(e.subscribers, fn)
}
