package main

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/pkg/pvcprotection"
)

// resyncPeriod is upstream's. The provisioning library lowers it for its own
// handlers before the informers start.
const resyncPeriod = time.Hour

func newInformerFactory(client kubernetes.Interface) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(client, resyncPeriod,
		informers.WithTransform(trimForCache))
}

// trimForCache keeps what the controllers read. Pods, watched only for PVC
// protection and the most numerous objects of a cluster, keep only what
// its rules need.
func trimForCache(obj any) (any, error) {
	if _, ok := obj.(*v1.Pod); ok {
		return pvcprotection.TrimPod(obj)
	}
	return stripManagedFields(obj)
}

// stripManagedFields drops managedFields before objects enter the caches:
// nothing here reads them and on claims and volumes they are often the
// largest part of the object.
func stripManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
