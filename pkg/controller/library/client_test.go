package library

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// The library's events leave through the events client, everything else
// through the API client: events have a rate limit of their own.
func TestTheLibrarysEventsGoThroughTheEventsClient(t *testing.T) {
	api, events := fake.NewClientset(), fake.NewClientset()
	library := New(Options{}).Client(api, events)
	event := &v1.Event{ObjectMeta: metav1.ObjectMeta{Name: "db.1", Namespace: testNamespace}, Reason: "Provisioning", Type: v1.EventTypeNormal}
	if _, err := library.CoreV1().Events(testNamespace).CreateWithEventNamespace(event); err != nil {
		t.Fatal(err)
	}
	if _, err := library.CoreV1().PersistentVolumeClaims(testNamespace).Create(context.Background(), newClaim("db"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := len(events.Actions()); n != 1 || events.Actions()[0].GetResource().Resource != "events" {
		t.Errorf("events client saw %v, want the one event", events.Actions())
	}
	if n := len(api.Actions()); n != 1 || api.Actions()[0].GetResource().Resource != "persistentvolumeclaims" {
		t.Errorf("API client saw %v, want the claim only", api.Actions())
	}
}

func TestWithoutAnEventsClientTheLibrarysEventsUseTheAPIClient(t *testing.T) {
	api := fake.NewClientset()
	library := New(Options{}).Client(api, nil)
	event := &v1.Event{ObjectMeta: metav1.ObjectMeta{Name: "db.1", Namespace: testNamespace}, Reason: "Provisioning", Type: v1.EventTypeNormal}
	if _, err := library.CoreV1().Events(testNamespace).CreateWithEventNamespace(event); err != nil {
		t.Fatal(err)
	}
	if n := len(api.Actions()); n != 1 {
		t.Errorf("API client saw %v, want the event", api.Actions())
	}
}
