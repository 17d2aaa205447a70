package reconcile

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
)

// A hand-off is what a controller does once its workers stopped, when the
// sidecar stops serving its objects (shutdown, or leadership lost): the
// caches stop with the workers, and other controllers' hand-offs write the
// same objects meanwhile, so a write decided on a cached copy may conflict
// and is decided again on a copy read from the API server.

// handOffAttempts bounds the reads of an object that keeps changing under
// a hand-off.
const handOffAttempts = 3

// HandOffEach hands off each of objs with handOff, until ctx ends, and
// returns how many it handed off (handOff wrote) and how many it did not:
// nothing to write, a failed write (logged), or not reached in time.
func HandOffEach[T klog.KMetadata](ctx context.Context, objs []T, handOff func(context.Context, T) (bool, error)) (done, notDone int) {
	logger := klog.FromContext(ctx)
	for _, obj := range objs {
		if ctx.Err() != nil {
			notDone++
			continue
		}
		wrote, err := handOff(ctx, obj)
		switch {
		case err != nil:
			notDone++
			logger.V(2).Info("Not handed off", "object", klog.KObj(obj), "reason", err.Error())
		case wrote:
			done++
		default:
			notDone++
		}
	}
	return done, notDone
}

// HandOffCached hands off, with handOff, the objects of a cache that pick
// selects, as HandOffEach does; list is the cache's lister's List.
func HandOffCached[T klog.KMetadata](ctx context.Context, list func(labels.Selector) ([]T, error), pick func(T) bool, handOff func(context.Context, T) (bool, error)) (done, notDone int, err error) {
	objs, err := list(labels.Everything())
	if err != nil {
		return 0, 0, err
	}
	objs = slices.DeleteFunc(objs, func(obj T) bool { return !pick(obj) })
	done, notDone = HandOffEach(ctx, objs, handOff)
	return done, notDone, nil
}

// OnFreshCopy runs try on obj and, while it answers 409 Conflict, reads
// the object again with get and runs try on that fresh copy, a few times
// at most. try reports whether it wrote; an object gone (404, from try or
// get) is no write and no error.
func OnFreshCopy[T klog.KMetadata](ctx context.Context, obj T, get func(context.Context, T) (T, error), try func(T) (bool, error)) (bool, error) {
	for range handOffAttempts {
		wrote, err := try(obj)
		switch {
		case err == nil:
			return wrote, nil
		case apierrors.IsNotFound(err):
			return false, nil
		case !apierrors.IsConflict(err):
			return false, err
		}
		fresh, err := get(ctx, obj)
		if err != nil {
			return false, IgnoreNotFound(err)
		}
		obj = fresh
	}
	return false, fmt.Errorf("%s kept changing", klog.KObj(obj))
}
