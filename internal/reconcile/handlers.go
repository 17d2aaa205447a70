package reconcile

import (
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Handler is the event handler most controllers register: onChange gets
// the object of every add and update (the new one), onDelete the object of
// every delete, unwrapped from the tombstone of a delete the informer
// missed. Either may be nil.
func Handler(onChange, onDelete func(obj interface{})) cache.ResourceEventHandlerFuncs {
	h := cache.ResourceEventHandlerFuncs{}
	if onChange != nil {
		h.AddFunc = onChange
		h.UpdateFunc = func(_, obj interface{}) { onChange(obj) }
	}
	if onDelete != nil {
		h.DeleteFunc = func(obj interface{}) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			onDelete(obj)
		}
	}
	return h
}

// ObjectNameLogValues names a namespaced key in the sync's logger under
// kind, e.g. "PVC".
func ObjectNameLogValues(kind string) func(key cache.ObjectName) []any {
	return func(key cache.ObjectName) []any { return []any{kind, klog.KRef(key.Namespace, key.Name)} }
}
