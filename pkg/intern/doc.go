// Package intern gives the objects of the informer caches one shared copy
// of the values they repeat: namespaces, class and driver names, access
// modes, finalizers, the same annotations and the same sizes. Decoding gives
// every object copies of its own, and with tens of thousands of claims and
// PVs cached those copies are most of the heap.
//
// A shared value is read-only, like the cached object that holds it: code
// that changes a cached object changes a deep copy, which gets copies of its
// own. Shared slices have no spare capacity, so an append to one copies it.
package intern
