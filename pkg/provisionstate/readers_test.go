package provisionstate

import (
	"testing"

	"k8s.io/client-go/tools/cache"
)

func TestSourceIsReadUntilItsLastCallEnds(t *testing.T) {
	r := NewReaders()
	source := cache.ObjectName{Namespace: "ns", Name: "snap"}
	var told []cache.ObjectName
	r.Subscribe(func(s cache.ObjectName) { told = append(told, s) })

	r.Begin(source)
	r.Begin(source)
	if !r.Reading(source) {
		t.Fatal("source with two calls is not read")
	}
	r.End(source)
	if !r.Reading(source) || len(told) != 0 {
		t.Fatalf("after one of two calls ended: reading %v, told %v; want reading and nobody told", r.Reading(source), told)
	}
	r.End(source)
	if r.Reading(source) {
		t.Fatal("source is still read after both calls ended")
	}
	if len(told) != 1 || told[0] != source {
		t.Fatalf("subscribers were told %v, want %v once", told, source)
	}
}

func TestOtherSourcesAreNotRead(t *testing.T) {
	r := NewReaders()
	r.Begin(cache.ObjectName{Namespace: "ns", Name: "a"})
	if r.Reading(cache.ObjectName{Namespace: "ns", Name: "b"}) {
		t.Fatal("a source no call reads is reported read")
	}
}
