package capacity

import (
	"slices"
	"testing"
	"time"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

func TestWritesAreCountedPerPollIntervalOfThePhase(t *testing.T) {
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	writes := []objectWrite{
		{at(-1), true}, {at(0), true}, {at(59), true}, {at(60), true}, {at(61), false}, {at(150), true}, {at(180), true},
	}
	w := measure.Window{From: start, To: at(180)}
	if got := perPoll(writes, w, time.Minute); !slices.Equal(got, []int{2, 1, 1}) {
		t.Errorf("perPoll = %v, want [2 1 1]: failed writes and those outside the phase left out", got)
	}
	if ok, failed := countIn(writes, w); ok != 4 || failed != 1 {
		t.Errorf("countIn = %d, %d; want 4 written and 1 refused", ok, failed)
	}
	if got := firstIn(writes, measure.Window{From: at(30), To: at(200)}); got != 29*time.Second {
		t.Errorf("firstIn = %s, want 29s", got)
	}
}

func TestOnlyTheSidecarsWritesOfObjectsCount(t *testing.T) {
	const user = "system:serviceaccount:default:csi-provisioner"
	capacity := &framework.AuditObjectRef{Resource: "csistoragecapacities", APIGroup: "storage.k8s.io"}
	for _, tc := range []struct {
		ev   framework.AuditEvent
		want bool
	}{
		{framework.AuditEvent{Verb: "update", User: framework.AuditUser{Username: user}, ObjectRef: capacity}, true},
		{framework.AuditEvent{Verb: "create", User: framework.AuditUser{Username: user}, ObjectRef: capacity}, true},
		{framework.AuditEvent{Verb: "list", User: framework.AuditUser{Username: user}, ObjectRef: capacity}, false},
		{framework.AuditEvent{Verb: "update", User: framework.AuditUser{Username: "admin"}, UserAgent: measure.BenchUserAgent, ObjectRef: capacity}, false},
		{framework.AuditEvent{Verb: "update", User: framework.AuditUser{Username: user}, ObjectRef: &framework.AuditObjectRef{Resource: "persistentvolumes"}}, false},
	} {
		if got := isObjectWrite(&tc.ev, user); got != tc.want {
			t.Errorf("isObjectWrite(%s %s by %s) = %v, want %v", tc.ev.Verb, tc.ev.ObjectRef.Resource, tc.ev.User.Username, got, tc.want)
		}
	}
}
