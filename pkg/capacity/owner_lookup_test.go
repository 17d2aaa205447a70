package capacity

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery/cached/memory"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/restmapper"
	k8stesting "k8s.io/client-go/testing"
)

func controlledBy(apiVersion, kind, name string, uid types.UID) []metav1.OwnerReference {
	yes := true
	return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &yes}}
}

func ownerLookup(objs ...runtime.Object) OwnerLookup {
	disc := &fakediscovery.FakeDiscovery{Fake: &k8stesting.Fake{}}
	disc.Resources = []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"get"}}}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "replicasets", Kind: "ReplicaSet", Namespaced: true, Verbs: []string{"get"}},
			{Name: "deployments", Kind: "Deployment", Namespaced: true, Verbs: []string{"get"}},
		}},
	}
	return OwnerLookup{
		Client: dynamicfake.NewSimpleDynamicClient(scheme.Scheme, objs...),
		Mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
	}
}

func TestOwnerLevels(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "csi-abc", Namespace: "csi", UID: "pod-uid",
		OwnerReferences: controlledBy("apps/v1", "ReplicaSet", "csi-rs", "rs-uid")}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "csi-rs", Namespace: "csi", UID: "rs-uid",
		OwnerReferences: controlledBy("apps/v1", "Deployment", "csi", "deploy-uid")}}
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "csi", Namespace: "csi", UID: "deploy-uid"}}
	lookup := ownerLookup(pod, rs, deploy)
	ctx := context.Background()

	for level, want := range map[int]string{0: "Pod/csi-abc/pod-uid", 1: "ReplicaSet/csi-rs/rs-uid", 2: "Deployment/csi/deploy-uid"} {
		got, err := lookup.Owner(ctx, "csi", "csi-abc", level)
		if err != nil {
			t.Fatalf("level %d: %v", level, err)
		}
		if s := got.Kind + "/" + got.Name + "/" + string(got.UID); s != want || got.Controller == nil || !*got.Controller {
			t.Errorf("level %d: owner %s (controller %v), want %s", level, s, got.Controller, want)
		}
	}
	if got, err := lookup.Owner(ctx, "csi", "csi-abc", -1); got != nil || err != nil {
		t.Errorf("level -1: %v, %v; want no owner", got, err)
	}
	if _, err := lookup.Owner(ctx, "csi", "csi-abc", 3); err == nil || !strings.Contains(err.Error(), "no controlling owner") {
		t.Errorf("level 3 past the Deployment: %v, want an error naming the missing owner", err)
	}
	if _, err := lookup.Owner(ctx, "csi", "missing", 1); err == nil {
		t.Error("a missing pod gave no error")
	}
}
