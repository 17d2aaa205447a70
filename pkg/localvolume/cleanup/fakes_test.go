package cleanup

import (
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type event struct {
	eventType, reason, message string
	// object is what the event was recorded on; Kind alone names the Go
	// type of anything but an object reference.
	object OwnerKey
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
	object := OwnerKey{Kind: fmt.Sprintf("%T", obj)}
	if ref, ok := obj.(*corev1.ObjectReference); ok {
		object = OwnerKey{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
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
