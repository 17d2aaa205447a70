package capacity

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// OwnerLookup walks up the ownership chain of the sidecar's pod.
type OwnerLookup struct {
	Client dynamic.Interface
	// Mapper maps an owner reference's kind to its resource; a
	// discovery-backed one (restmapper.NewDeferredDiscoveryRESTMapper) fits.
	Mapper *restmapper.DeferredDiscoveryRESTMapper
}

// Owner returns the controlling owner of CSIStorageCapacity objects, as
// upstream's --capacity-ownerref-level finds it: level 0 is the pod itself,
// 1 its controller (a DaemonSet or StatefulSet), 2 that one's controller (a
// Deployment through its ReplicaSet), and so on. Only the objects below
// the last level are read, so level 1 needs to get pods only.
func (l OwnerLookup) Owner(ctx context.Context, namespace, podName string, level int) (*metav1.OwnerReference, error) {
	if level < 0 {
		return nil, nil
	}
	apiVersion, kind, name := "v1", "Pod", podName
	for {
		obj, err := l.get(ctx, namespace, apiVersion, kind, name)
		if err != nil {
			return nil, err
		}
		if level == 0 {
			return controllerRef(apiVersion, kind, name, obj.GetUID()), nil
		}
		owner := metav1.GetControllerOfNoCopy(obj)
		if owner == nil {
			return nil, fmt.Errorf("%s %s/%s has no controlling owner: --capacity-ownerref-level asks for %d more level(s)", kind, namespace, name, level)
		}
		if level == 1 {
			return controllerRef(owner.APIVersion, owner.Kind, owner.Name, owner.UID), nil
		}
		apiVersion, kind, name = owner.APIVersion, owner.Kind, owner.Name
		level--
	}
}

func (l OwnerLookup) get(ctx context.Context, namespace, apiVersion, kind, name string) (metav1.Object, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("owner reference API version %q: %w", apiVersion, err)
	}
	mapping, err := l.Mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version)
	if err != nil {
		// Discovery may predate a newly served kind.
		l.Mapper.Reset()
		if mapping, err = l.Mapper.RESTMapping(gv.WithKind(kind).GroupKind(), gv.Version); err != nil {
			return nil, fmt.Errorf("resource of %s %s: %w", apiVersion, kind, err)
		}
	}
	obj, err := l.Client.Resource(mapping.Resource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("getting %s %s/%s to find the owner of CSIStorageCapacity objects: %w", kind, namespace, name, err)
	}
	return obj, nil
}

func controllerRef(apiVersion, kind, name string, uid types.UID) *metav1.OwnerReference {
	isController := true
	return &metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &isController}
}
