package testutil

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
)

// APIServerOptions tune ServerSemantics.
type APIServerOptions struct {
	// StatusSubresources are the resources whose status, as with a status
	// subresource, only a write to "status" changes, and whose writes to
	// "status" change nothing else. Others take status with the object.
	StatusSubresources []string
}

// NewClientset is a fake clientset holding objs that behaves as the API
// server does where this project's controllers rely on it (see
// ServerSemantics). Objects without a resourceVersion get one.
func NewClientset(objs ...runtime.Object) *fake.Clientset {
	return NewClientsetWithOptions(APIServerOptions{}, objs...)
}

// NewClientsetWithOptions is NewClientset with opts, e.g. status
// subresources.
func NewClientsetWithOptions(opts APIServerOptions, objs ...runtime.Object) *fake.Clientset {
	client := fake.NewClientset()
	ServerSemantics(&client.Fake, client.Tracker(), opts)
	for _, obj := range objs {
		gvr, err := resourceOf(obj)
		if err != nil {
			panic(err)
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			panic(err)
		}
		if _, err := client.Invokes(k8stesting.NewCreateAction(gvr, m.GetNamespace(), obj), nil); err != nil {
			panic(err)
		}
	}
	return client
}

func resourceOf(obj runtime.Object) (schema.GroupVersionResource, error) {
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	gvr, _ := meta.UnsafeGuessKindToResource(gvks[0])
	return gvr, nil
}

// ServerSemantics makes every resource of a fake behave as on a real API
// server where it matters: a create gets a UID, a resourceVersion, a
// creationTimestamp and, for a generateName, a name, none of which a write
// changes after; every write bumps the resourceVersion; an update, or a
// merge or strategic-merge patch that carries metadata.resourceVersion or
// metadata.uid, fails with
// 409 Conflict when they do not match, as do delete preconditions; a
// delete of an object with finalizers only sets its deletionTimestamp, and
// an object being deleted goes when its last finalizer does; no finalizer
// can be added to an object being deleted. The plain fakes do none of
// this. LIST then WATCH loses no change in between: the tracker replays
// what is newer than the list.
func ServerSemantics(f *k8stesting.Fake, tracker k8stesting.ObjectTracker, opts APIServerOptions) {
	s := &server{tracker: tracker, opts: opts}
	f.PrependReactor("*", "*", s.react)
}

type server struct {
	tracker k8stesting.ObjectTracker
	opts    APIServerOptions
	mu      sync.Mutex
	rv      atomic.Int64
	uids    atomic.Int64
	names   atomic.Int64
}

func (s *server) nextRV() string { return strconv.FormatInt(s.rv.Add(1)+1000, 10) }

func conflict(gvr schema.GroupVersionResource, name, why string) error {
	return apierrors.NewConflict(gvr.GroupResource(), name, errors.New(why))
}

func (s *server) react(action k8stesting.Action) (bool, runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gvr := action.GetResource()
	switch a := action.(type) {
	case k8stesting.CreateActionImpl:
		if a.Subresource != "" {
			return false, nil, nil
		}
		obj := a.Object.DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			return false, nil, nil
		}
		if m.GetName() == "" && m.GetGenerateName() != "" {
			m.SetName(m.GetGenerateName() + strconv.FormatInt(s.names.Add(1), 10))
		}
		if m.GetUID() == "" {
			m.SetUID(types.UID("uid-" + strconv.FormatInt(s.uids.Add(1), 10)))
		}
		if created := m.GetCreationTimestamp(); created.IsZero() {
			m.SetCreationTimestamp(metav1.Now())
		}
		m.SetResourceVersion(s.nextRV())
		if m.GetNamespace() == "" {
			m.SetNamespace(a.Namespace)
		}
		return true, obj, s.tracker.Create(gvr, obj, m.GetNamespace())
	case k8stesting.UpdateActionImpl:
		obj := a.Object.DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			return false, nil, nil
		}
		cur, err := s.tracker.Get(gvr, a.Namespace, m.GetName())
		if err != nil {
			return true, nil, err
		}
		cm, _ := meta.Accessor(cur)
		if v := m.GetResourceVersion(); v != "" && v != cm.GetResourceVersion() {
			return true, nil, conflict(gvr, m.GetName(), "the object has been modified")
		}
		out, err := s.store(gvr, a.Namespace, cur, obj, a.Subresource)
		return true, out, err
	case k8stesting.PatchActionImpl:
		cur, err := s.tracker.Get(gvr, a.Namespace, a.Name)
		if err != nil {
			return true, nil, err
		}
		cm, _ := meta.Accessor(cur)
		if a.PatchType == types.MergePatchType || a.PatchType == types.StrategicMergePatchType {
			pinned, err := PinOf(a.Patch)
			if err != nil {
				return true, nil, apierrors.NewBadRequest(err.Error())
			}
			if v := pinned.ResourceVersion; v != "" && v != cm.GetResourceVersion() {
				return true, nil, conflict(gvr, a.Name, "the object has been modified")
			}
			if u := pinned.UID; u != "" && u != cm.GetUID() {
				return true, nil, conflict(gvr, a.Name, "UID mismatch")
			}
		}
		// The tracker applies the patch; store then applies the rules.
		_, patched, err := k8stesting.ObjectReaction(readOnly{s.tracker})(a)
		if err != nil {
			return true, nil, err
		}
		out, err := s.store(gvr, a.Namespace, cur, patched, a.Subresource)
		return true, out, err
	case k8stesting.DeleteActionImpl:
		cur, err := s.tracker.Get(gvr, a.Namespace, a.Name)
		if err != nil {
			return true, nil, err
		}
		cm, _ := meta.Accessor(cur)
		if p := a.DeleteOptions.Preconditions; p != nil {
			if p.UID != nil && *p.UID != cm.GetUID() {
				return true, nil, conflict(gvr, a.Name, "UID precondition failed")
			}
			if p.ResourceVersion != nil && *p.ResourceVersion != cm.GetResourceVersion() {
				return true, nil, conflict(gvr, a.Name, "resourceVersion precondition failed")
			}
		}
		if len(cm.GetFinalizers()) == 0 {
			return true, nil, s.tracker.Delete(gvr, a.Namespace, a.Name)
		}
		if cm.GetDeletionTimestamp() == nil {
			now := metav1.Now()
			cm.SetDeletionTimestamp(&now)
			cm.SetResourceVersion(s.nextRV())
			return true, nil, s.tracker.Update(gvr, cur, a.Namespace)
		}
		return true, nil, nil
	}
	return false, nil, nil
}

// Pin is the resourceVersion and UID a merge or strategic-merge patch
// carries in its metadata, which the API server checks before it applies
// the patch; "" where it carries none.
type Pin struct {
	ResourceVersion string
	UID             types.UID
}

// PinOf reads the pin of a JSON merge or strategic-merge patch.
func PinOf(patch []byte) (Pin, error) {
	var p struct {
		Metadata struct {
			ResourceVersion string    `json:"resourceVersion"`
			UID             types.UID `json:"uid"`
		} `json:"metadata"`
	}
	err := json.Unmarshal(patch, &p)
	return Pin{ResourceVersion: p.Metadata.ResourceVersion, UID: p.Metadata.UID}, err
}

// store writes next, the new state of cur, under the server's rules.
func (s *server) store(gvr schema.GroupVersionResource, namespace string, cur, next runtime.Object, subresource string) (runtime.Object, error) {
	cm, _ := meta.Accessor(cur)
	if slices.Contains(s.opts.StatusSubresources, gvr.Resource) {
		var err error
		if next, err = splitStatus(cur, next, subresource == "status"); err != nil {
			return nil, err
		}
	}
	m, err := meta.Accessor(next)
	if err != nil {
		return nil, err
	}
	// Only a delete sets it, and nothing clears it.
	m.SetDeletionTimestamp(cm.GetDeletionTimestamp())
	m.SetUID(cm.GetUID())
	m.SetCreationTimestamp(cm.GetCreationTimestamp())
	if cm.GetDeletionTimestamp() != nil {
		for _, f := range m.GetFinalizers() {
			if !slices.Contains(cm.GetFinalizers(), f) {
				return nil, apierrors.NewForbidden(gvr.GroupResource(), m.GetName(),
					errors.New("no new finalizers can be added if the object is being deleted"))
			}
		}
		if len(m.GetFinalizers()) == 0 {
			return next, s.tracker.Delete(gvr, namespace, m.GetName())
		}
	}
	m.SetResourceVersion(s.nextRV())
	return next, s.tracker.Update(gvr, next, namespace)
}

// readOnly lets ObjectReaction compute a patch without storing it.
type readOnly struct{ k8stesting.ObjectTracker }

func (readOnly) Update(schema.GroupVersionResource, runtime.Object, string, ...metav1.UpdateOptions) error {
	return nil
}

func (readOnly) Patch(schema.GroupVersionResource, runtime.Object, string, ...metav1.PatchOptions) error {
	return nil
}

// splitStatus is what a write of the status subresource (toStatus) or of
// the object leaves of patched, the old object with the write applied: the
// status of one and the rest of the other.
func splitStatus(old, patched runtime.Object, toStatus bool) (runtime.Object, error) {
	o, err := runtime.DefaultUnstructuredConverter.ToUnstructured(old)
	if err != nil {
		return nil, err
	}
	p, err := runtime.DefaultUnstructuredConverter.ToUnstructured(patched)
	if err != nil {
		return nil, err
	}
	from, into := o, p
	if toStatus {
		from, into = p, o
	}
	if status, ok := from["status"]; ok {
		into["status"] = status
	} else {
		delete(into, "status")
	}
	if _, ok := patched.(*unstructured.Unstructured); ok {
		return &unstructured.Unstructured{Object: into}, nil
	}
	out := reflect.New(reflect.TypeOf(patched).Elem()).Interface().(runtime.Object)
	return out, runtime.DefaultUnstructuredConverter.FromUnstructured(into, out)
}
