package cleanup

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
)

// --- events ---

type event struct {
	eventType, reason, message string
	// object is what the event was recorded on, as Kind/namespace/name.
	object string
}

func (e event) String() string {
	return fmt.Sprintf("%s %s on %s: %s", e.eventType, e.reason, e.object, e.message)
}

// eventLog is an EventRecorder that keeps what it is given.
type eventLog struct {
	mu     sync.Mutex
	events []event
}

func (l *eventLog) Event(obj runtime.Object, eventType, reason, message string) {
	object := fmt.Sprintf("%T", obj)
	if ref, ok := obj.(*corev1.ObjectReference); ok {
		object = ref.Kind + "/" + ref.Namespace + "/" + ref.Name
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, event{eventType: eventType, reason: reason, message: message, object: object})
}

func (l *eventLog) Eventf(obj runtime.Object, eventType, reason, format string, args ...interface{}) {
	l.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

func (l *eventLog) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventType, reason, format string, args ...interface{}) {
	l.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

func (l *eventLog) all() []event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]event(nil), l.events...)
}

// withReason keeps the events of one reason.
func withReason(events []event, reason string) []event {
	var out []event
	for _, e := range events {
		if e.reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// --- the fake API server ---

// serverSemantics makes a fake clientset's resource behave as the API
// server does where the controller relies on it: a merge patch or delete
// whose resourceVersion or UID precondition does not hold fails with 409
// Conflict, every write bumps the resourceVersion, a delete of an object
// with finalizers only sets its deletionTimestamp, an object being deleted
// goes when its last finalizer does, and, as with a status subresource, a
// patch of the status changes nothing else and a patch of the object does
// not change the status. The plain fakes do none of this.
func serverSemantics(f *k8stesting.Fake, tracker k8stesting.ObjectTracker, gvr schema.GroupVersionResource, rv *atomic.Int64) {
	nextRV := func() string { return strconv.FormatInt(rv.Add(1), 10) }
	conflict := func(name, why string) error {
		return apierrors.NewConflict(gvr.GroupResource(), name, errors.New(why))
	}
	f.PrependReactor("delete", gvr.Resource, func(action k8stesting.Action) (bool, runtime.Object, error) {
		del := action.(k8stesting.DeleteActionImpl)
		obj, err := tracker.Get(gvr, del.Namespace, del.Name)
		if err != nil {
			return true, nil, err
		}
		m, _ := meta.Accessor(obj)
		if p := del.DeleteOptions.Preconditions; p != nil {
			if p.UID != nil && *p.UID != m.GetUID() {
				return true, nil, conflict(del.Name, "UID precondition failed")
			}
			if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
				return true, nil, conflict(del.Name, "resourceVersion precondition failed")
			}
		}
		if len(m.GetFinalizers()) == 0 {
			return false, nil, nil // the tracker deletes it
		}
		if m.GetDeletionTimestamp() == nil {
			now := metav1.Now()
			m.SetDeletionTimestamp(&now)
			m.SetResourceVersion(nextRV())
			if err := tracker.Update(gvr, obj, del.Namespace); err != nil {
				return true, nil, err
			}
		}
		return true, nil, nil
	})
	f.PrependReactor("patch", gvr.Resource, func(action k8stesting.Action) (bool, runtime.Object, error) {
		patch := action.(k8stesting.PatchActionImpl)
		obj, err := tracker.Get(gvr, patch.Namespace, patch.Name)
		if err != nil {
			return true, nil, err
		}
		m, _ := meta.Accessor(obj)
		var pinned struct {
			Metadata struct {
				ResourceVersion string    `json:"resourceVersion"`
				UID             types.UID `json:"uid"`
			} `json:"metadata"`
		}
		if patch.PatchType == types.MergePatchType {
			if err := json.Unmarshal(patch.Patch, &pinned); err != nil {
				return true, nil, apierrors.NewBadRequest(err.Error())
			}
		}
		if v := pinned.Metadata.ResourceVersion; v != "" && v != m.GetResourceVersion() {
			return true, nil, conflict(patch.Name, "the object has been modified")
		}
		if u := pinned.Metadata.UID; u != "" && u != m.GetUID() {
			return true, nil, conflict(patch.Name, "UID mismatch")
		}
		_, out, err := k8stesting.ObjectReaction(tracker)(action)
		if err != nil {
			return true, nil, err
		}
		if out, err = splitStatus(obj, out, patch.Subresource == "status"); err != nil {
			return true, nil, err
		}
		om, _ := meta.Accessor(out)
		if om.GetDeletionTimestamp() != nil && len(om.GetFinalizers()) == 0 {
			return true, out, tracker.Delete(gvr, patch.Namespace, patch.Name)
		}
		om.SetResourceVersion(nextRV())
		return true, out, tracker.Update(gvr, out, patch.Namespace)
	})
}

// splitStatus is what a patch of the status subresource (toStatus) or of
// the object leaves of patched, the old object with the patch applied: the
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
