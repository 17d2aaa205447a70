package library

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// ClaimsInformer returns the claim informer as the library should get it
// (its ClaimsInformer option): the handlers the library adds through it
// are kept, so that the provisioner can hand a claim back to the library
// when a hold it made ends (RequeueClaim).
//
// Library v10 has no way to requeue a claim from outside but its own
// handlers; a resync would also bring the claim back, but only at the next
// resync period (15 minutes), where upstream retries right after
// --retry-interval-max. Calling the library's handler as a resync of that
// one claim does exactly what a resync does, at the time wanted.
//
// The library's claim handlers also do not see the updates that only the
// sidecar's own protection writes made (see withoutOwnWrites).
func (a *Adapter) ClaimsInformer(informer cache.SharedIndexInformer) cache.SharedIndexInformer {
	return libraryInformer{SharedIndexInformer: informer, handlers: a.claimHandlers, wrap: func(h cache.ResourceEventHandler) cache.ResourceEventHandler {
		return withoutOwnWrites{h}
	}}
}

// VolumesInformer is ClaimsInformer for the library's VolumesInformer
// option: the recycle bin hands a PV whose volume may now be deleted back
// to the library at its deadline (RequeueVolume).
func (a *Adapter) VolumesInformer(informer cache.SharedIndexInformer) cache.SharedIndexInformer {
	return libraryInformer{SharedIndexInformer: informer, handlers: a.volumeHandlers}
}

// RequeueVolume hands pv to the library, as a resync of that one PV would.
func (a *Adapter) RequeueVolume(pv *v1.PersistentVolume) {
	for _, h := range a.volumeHandlers.list() {
		h.OnUpdate(pv, pv)
	}
}

// RequeueClaim hands the cached claim back to the library, as a resync of
// that one claim would, if it is still the claim of that UID.
func (a *Adapter) RequeueClaim(logger klog.Logger, name cache.ObjectName, uid types.UID) {
	claim, err := a.opts.Claims.PersistentVolumeClaims(name.Namespace).Get(name.Name)
	if err != nil || claim.UID != uid {
		logger.V(4).Info("Claim whose hold ended is gone", "err", err)
		return
	}
	handlers := a.claimHandlers.list()
	logger.V(4).Info("Handing the claim back to the provisioning library", "handlers", len(handlers))
	for _, h := range handlers {
		// What a resync of this one claim would send.
		h.OnUpdate(claim, claim)
	}
}

type libraryInformer struct {
	cache.SharedIndexInformer
	handlers *libraryHandlers
	// wrap, if set, is put around each of the library's handlers.
	wrap func(cache.ResourceEventHandler) cache.ResourceEventHandler
}

// handler is the library's handler as registered and kept.
func (i libraryInformer) handler(h cache.ResourceEventHandler) cache.ResourceEventHandler {
	if i.wrap != nil {
		h = i.wrap(h)
	}
	i.handlers.add(h)
	return h
}

func (i libraryInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandler(i.handler(h))
}

func (i libraryInformer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, resync time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandlerWithResyncPeriod(i.handler(h), resync)
}

func (i libraryInformer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, opts cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandlerWithOptions(i.handler(h), opts)
}

// libraryHandlers are the library's handlers of one kind.
type libraryHandlers struct {
	mu       sync.Mutex
	handlers []cache.ResourceEventHandler
}

func (c *libraryHandlers) add(h cache.ResourceEventHandler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers = append(c.handlers, h)
}

func (c *libraryHandlers) list() []cache.ResourceEventHandler {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]cache.ResourceEventHandler(nil), c.handlers...)
}
