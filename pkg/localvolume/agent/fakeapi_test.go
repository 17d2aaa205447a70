package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// ---- The fake API server. ----

var pvResource = corev1.SchemeGroupVersion.WithResource("persistentvolumes")

// newClient is a fake clientset whose PVs behave as on a real API server
// where it matters here: writes bump the resourceVersion, patches and
// deletes honour resourceVersion and UID preconditions, and a delete of a PV
// with finalizers only sets its deletionTimestamp.
func newClient(objs ...runtime.Object) *fake.Clientset {
	client := fake.NewClientset(objs...)
	tracker := client.Tracker()
	var mu sync.Mutex
	rv := int64(1000)
	nextRV := func() string { rv++; return strconv.FormatInt(rv, 10) }
	get := func(name string) (*corev1.PersistentVolume, error) {
		obj, err := tracker.Get(pvResource, "", name)
		if err != nil {
			return nil, err
		}
		return obj.(*corev1.PersistentVolume).DeepCopy(), nil
	}
	conflict := func(name, why string) error {
		return apierrors.NewConflict(pvResource.GroupResource(), name, fmt.Errorf("%s", why))
	}
	// store writes pv back, or removes it when it is deleted and has no
	// finalizer left.
	store := func(pv *corev1.PersistentVolume) (runtime.Object, error) {
		if pv.DeletionTimestamp != nil && len(pv.Finalizers) == 0 {
			return pv, tracker.Delete(pvResource, "", pv.Name)
		}
		pv.ResourceVersion = nextRV()
		return pv, tracker.Update(pvResource, pv, "")
	}
	client.PrependReactor("*", "persistentvolumes", func(action k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		switch action.GetVerb() {
		case "create":
			pv := action.(k8stesting.CreateAction).GetObject().(*corev1.PersistentVolume).DeepCopy()
			pv.ResourceVersion = nextRV()
			if pv.UID == "" {
				pv.UID = types.UID("uid-" + pv.Name + "-" + pv.ResourceVersion)
			}
			return true, pv, tracker.Create(pvResource, pv, "")
		case "update":
			pv := action.(k8stesting.UpdateAction).GetObject().(*corev1.PersistentVolume).DeepCopy()
			cur, err := get(pv.Name)
			if err != nil {
				return true, nil, err
			}
			if pv.ResourceVersion != "" && pv.ResourceVersion != cur.ResourceVersion {
				return true, nil, conflict(pv.Name, "resourceVersion changed")
			}
			if cur.DeletionTimestamp != nil {
				pv.DeletionTimestamp = cur.DeletionTimestamp
			}
			obj, err := store(pv)
			return true, obj, err
		case "patch":
			a := action.(k8stesting.PatchAction)
			if a.GetPatchType() != types.MergePatchType {
				return true, nil, fmt.Errorf("fake API server: only merge patches, got %s", a.GetPatchType())
			}
			cur, err := get(a.GetName())
			if err != nil {
				return true, nil, err
			}
			var meta struct {
				Metadata struct {
					ResourceVersion string `json:"resourceVersion"`
					UID             string `json:"uid"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(a.GetPatch(), &meta); err != nil {
				return true, nil, err
			}
			if m := meta.Metadata; (m.ResourceVersion != "" && m.ResourceVersion != cur.ResourceVersion) ||
				(m.UID != "" && m.UID != string(cur.UID)) {
				return true, nil, conflict(cur.Name, "precondition failed")
			}
			old, _ := json.Marshal(cur)
			modified, err := jsonpatch.MergePatch(old, a.GetPatch())
			if err != nil {
				return true, nil, err
			}
			pv := &corev1.PersistentVolume{}
			if err := json.Unmarshal(modified, pv); err != nil {
				return true, nil, err
			}
			pv.DeletionTimestamp = cur.DeletionTimestamp
			obj, err := store(pv)
			return true, obj, err
		case "delete":
			a := action.(k8stesting.DeleteAction)
			cur, err := get(a.GetName())
			if err != nil {
				return true, nil, err
			}
			if p := a.GetDeleteOptions().Preconditions; p != nil {
				if (p.UID != nil && *p.UID != cur.UID) || (p.ResourceVersion != nil && *p.ResourceVersion != cur.ResourceVersion) {
					return true, nil, conflict(cur.Name, "delete precondition failed")
				}
			}
			if len(cur.Finalizers) == 0 {
				return true, cur, tracker.Delete(pvResource, "", cur.Name)
			}
			if cur.DeletionTimestamp == nil {
				now := metav1.Now()
				cur.DeletionTimestamp = &now
			}
			obj, err := store(cur)
			return true, obj, err
		}
		return false, nil, nil
	})
	return client
}

// ---- The fake dynamic client (dynamic/fake is not vendored). ----

type fakeDynamic struct {
	dynamic.Interface
	mu       sync.Mutex
	rv       int
	objs     map[schema.GroupVersionResource]map[string]*unstructured.Unstructured
	history  map[schema.GroupVersionResource][]watch.Event
	watchers map[schema.GroupVersionResource][]*watch.RaceFreeFakeWatcher
}

func newFakeDynamic() *fakeDynamic {
	return &fakeDynamic{
		objs:     map[schema.GroupVersionResource]map[string]*unstructured.Unstructured{},
		history:  map[schema.GroupVersionResource][]watch.Event{},
		watchers: map[schema.GroupVersionResource][]*watch.RaceFreeFakeWatcher{},
	}
}

// IsWatchListSemanticsUnSupported: the informers list, then watch.
func (f *fakeDynamic) IsWatchListSemanticsUnSupported() bool { return true }

func (f *fakeDynamic) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return &fakeResource{f: f, gvr: gvr}
}

// set adds or replaces an object and tells the watchers.
func (f *fakeDynamic) set(gvr schema.GroupVersionResource, u *unstructured.Unstructured) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u = u.DeepCopy()
	f.rv++
	u.SetResourceVersion(strconv.Itoa(f.rv))
	if f.objs[gvr] == nil {
		f.objs[gvr] = map[string]*unstructured.Unstructured{}
	}
	key := u.GetNamespace() + "/" + u.GetName()
	typ := watch.Added
	if _, ok := f.objs[gvr][key]; ok {
		typ = watch.Modified
	}
	f.objs[gvr][key] = u
	f.emit(gvr, watch.Event{Type: typ, Object: u})
}

func (f *fakeDynamic) remove(gvr schema.GroupVersionResource, namespace, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := namespace + "/" + name
	u, ok := f.objs[gvr][key]
	if !ok {
		return
	}
	delete(f.objs[gvr], key)
	f.rv++
	u = u.DeepCopy()
	u.SetResourceVersion(strconv.Itoa(f.rv))
	f.emit(gvr, watch.Event{Type: watch.Deleted, Object: u})
}

func (f *fakeDynamic) get(gvr schema.GroupVersionResource, namespace, name string) *unstructured.Unstructured {
	f.mu.Lock()
	defer f.mu.Unlock()
	if u, ok := f.objs[gvr][namespace+"/"+name]; ok {
		return u.DeepCopy()
	}
	return nil
}

func (f *fakeDynamic) emit(gvr schema.GroupVersionResource, ev watch.Event) {
	f.history[gvr] = append(f.history[gvr], ev)
	for _, w := range f.watchers[gvr] {
		send(w, ev)
	}
}

func send(w *watch.RaceFreeFakeWatcher, ev watch.Event) {
	obj := ev.Object.DeepCopyObject()
	switch ev.Type {
	case watch.Added:
		w.Add(obj)
	case watch.Modified:
		w.Modify(obj)
	case watch.Deleted:
		w.Delete(obj)
	}
}

type fakeResource struct {
	dynamic.NamespaceableResourceInterface
	f   *fakeDynamic
	gvr schema.GroupVersionResource
}

func (r *fakeResource) Namespace(string) dynamic.ResourceInterface { return r }

func (r *fakeResource) List(_ context.Context, _ metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	list := &unstructured.UnstructuredList{}
	list.SetResourceVersion(strconv.Itoa(r.f.rv))
	for _, u := range r.f.objs[r.gvr] {
		list.Items = append(list.Items, *u.DeepCopy())
	}
	return list, nil
}

// Watch replays what happened after the listed resourceVersion, then
// follows.
func (r *fakeResource) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	from, _ := strconv.Atoi(opts.ResourceVersion)
	w := watch.NewRaceFreeFake()
	for _, ev := range r.f.history[r.gvr] {
		if rv, _ := strconv.Atoi(ev.Object.(*unstructured.Unstructured).GetResourceVersion()); rv > from {
			send(w, ev)
		}
	}
	r.f.watchers[r.gvr] = append(r.f.watchers[r.gvr], w)
	return w, nil
}
