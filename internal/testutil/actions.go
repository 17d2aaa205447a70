package testutil

import (
	"slices"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// ActionFilter keeps some of the requests a fake clientset recorded.
type ActionFilter func(k8stesting.Action) bool

// Actions returns the actions that every filter keeps, in order.
func Actions(actions []k8stesting.Action, keep ...ActionFilter) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range actions {
		if matches(a, keep) {
			out = append(out, a)
		}
	}
	return out
}

func matches(a k8stesting.Action, keep []ActionFilter) bool {
	for _, k := range keep {
		if !k(a) {
			return false
		}
	}
	return true
}

// Writes keeps every request that may change something: all but get, list
// and watch.
func Writes(a k8stesting.Action) bool {
	switch a.GetVerb() {
	case "get", "list", "watch":
		return false
	}
	return true
}

// Verb keeps the requests of any of verbs ("patch", "update"...).
func Verb(verbs ...string) ActionFilter {
	return func(a k8stesting.Action) bool { return slices.Contains(verbs, a.GetVerb()) }
}

// Named keeps the requests for the object name: a get, patch or delete of
// it, or a create or update of an object of that name.
func Named(name string) ActionFilter {
	return func(a k8stesting.Action) bool {
		switch a := a.(type) {
		case interface{ GetName() string }:
			return a.GetName() == name
		case interface{ GetObject() runtime.Object }:
			m, err := meta.Accessor(a.GetObject())
			return err == nil && m.GetName() == name
		}
		return false
	}
}

// On keeps the requests for one resource ("persistentvolumes"...), of the
// object or any of its subresources.
func On(resource string) ActionFilter {
	return func(a k8stesting.Action) bool { return a.GetResource().Resource == resource }
}

// OnSubresource keeps the requests for one subresource, "" for the object
// itself.
func OnSubresource(subresource string) ActionFilter {
	return func(a k8stesting.Action) bool { return a.GetSubresource() == subresource }
}

// Patches returns the patches among actions that every filter keeps.
func Patches(actions []k8stesting.Action, keep ...ActionFilter) []k8stesting.PatchActionImpl {
	var out []k8stesting.PatchActionImpl
	for _, a := range Actions(actions, keep...) {
		if p, ok := a.(k8stesting.PatchActionImpl); ok {
			out = append(out, p)
		}
	}
	return out
}

// Reactors is a fake clientset, or its k8stesting.Fake, to which a test
// adds reactions.
type Reactors interface {
	PrependReactor(verb, resource string, reaction k8stesting.ReactionFunc)
}

// FailNext makes the next n requests that every filter keeps fail with
// err, before the fake API server sees them; n < 0 fails them all. Those
// after go through.
func FailNext(f Reactors, n int, err error, keep ...ActionFilter) {
	var left atomic.Int64
	left.Store(int64(n))
	f.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if !matches(a, keep) || (n >= 0 && left.Add(-1) < 0) {
			return false, nil, nil
		}
		return true, nil, err
	})
}

// BeforeEach runs do on every request that every filter keeps, before the
// fake API server answers it, as another writer whose write lands just
// before the request. It runs under the fake's lock: do must reach the
// fake's tracker, not its clientset.
func BeforeEach(f Reactors, do func(k8stesting.Action), keep ...ActionFilter) {
	f.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if matches(a, keep) {
			do(a)
		}
		return false, nil, nil
	})
}

// BeforeNext is BeforeEach for the first request that every filter keeps
// alone.
func BeforeNext(f Reactors, do func(k8stesting.Action), keep ...ActionFilter) {
	var done atomic.Bool
	BeforeEach(f, func(a k8stesting.Action) {
		if !done.Swap(true) {
			do(a)
		}
	}, keep...)
}
