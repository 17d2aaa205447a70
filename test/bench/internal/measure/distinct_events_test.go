package measure

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

func TestARecordedEventIsReadFromItsLogLine(t *testing.T) {
	line := []byte(`I1127 02:14:25.561455    5453 event.go:395] "Event occurred" object="default/data" fieldPath="" kind="PersistentVolumeClaim" apiVersion="v1" type="Warning" reason="ProvisioningFailed" message="rpc error: code = Unavailable desc = \"busy\" now"`)
	got, ok := ParseRecordedEvent(line)
	want := DistinctEvent{Kind: "PersistentVolumeClaim", Object: "default/data", Reason: "ProvisioningFailed", Message: `rpc error: code = Unavailable desc = "busy" now`}
	if !ok || got != want {
		t.Fatalf("ParseRecordedEvent = %+v, %v; want %+v", got, ok, want)
	}
	if _, ok := ParseRecordedEvent([]byte(`I1127 "Event occurred" object="pvc-1" reason="x"`)); ok {
		t.Error("a line without kind and message must not parse")
	}
	if _, ok := ParseRecordedEvent([]byte(`I1127 "Provisioning" object="a" kind="b" reason="c" message="d"`)); ok {
		t.Error("only the recorder's lines are events")
	}
}

// A user sees an event written with its message, or folded by client-go's
// correlator into a combined event of its object and reason.
func TestAWrittenEventIsOneAUserCanRead(t *testing.T) {
	claim := v1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "default", Name: "data"}
	pv := v1.ObjectReference{Kind: "PersistentVolume", Name: "pvc-1"}
	written := NewWrittenEvents([]v1.Event{
		{InvolvedObject: claim, Reason: "Provisioning", Message: "provisioning"},
		{InvolvedObject: pv, Reason: "VolumeFailedDelete", Message: combinedPrefix + "attached to node-1"},
	})
	for _, tc := range []struct {
		event DistinctEvent
		want  bool
	}{
		{DistinctEvent{"PersistentVolumeClaim", "default/data", "Provisioning", "provisioning"}, true},
		{DistinctEvent{"PersistentVolumeClaim", "default/data", "Provisioning", "other text"}, false},
		{DistinctEvent{"PersistentVolumeClaim", "default/other", "Provisioning", "provisioning"}, false},
		{DistinctEvent{"PersistentVolume", "pvc-1", "VolumeFailedDelete", "attached to node-2"}, true},
		{DistinctEvent{"PersistentVolume", "pvc-1", "VolumeDeleted", "attached to node-2"}, false},
	} {
		if got := written.Holds(tc.event); got != tc.want {
			t.Errorf("Holds(%+v) = %v, want %v", tc.event, got, tc.want)
		}
	}
}
