package provisionstate

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestASecondCallForTheSameClaimIsRefused(t *testing.T) {
	tr := NewTracker()
	if prev, ok := tr.Begin("a"); !ok || prev != Unknown {
		t.Fatalf("first Begin: %v %v", prev, ok)
	}
	if _, ok := tr.Begin("a"); ok {
		t.Error("a second call for the same claim was let in")
	}
	if _, ok := tr.Begin("b"); !ok {
		t.Error("a call for another claim was refused")
	}
}

func TestEndRecordsTheOutcomeAndTellsSubscribers(t *testing.T) {
	tr := NewTracker()
	var told []types.UID
	tr.Subscribe(func(uid types.UID) { told = append(told, uid) })
	tr.Begin("a")
	tr.End("a", Final)
	if tr.State("a") != Final || len(told) != 1 || told[0] != "a" {
		t.Errorf("state %v, told %v", tr.State("a"), told)
	}
	if prev, ok := tr.Begin("a"); !ok || prev != Final {
		t.Errorf("Begin after a final call: %v %v", prev, ok)
	}
	tr.End("a", Unknown)
	if tr.State("a") != Unknown {
		t.Errorf("an unknown outcome left %v", tr.State("a"))
	}
}

func TestForgetKeepsARunningCall(t *testing.T) {
	tr := NewTracker()
	tr.Begin("a")
	tr.Forget("a")
	if tr.State("a") != Calling {
		t.Error("Forget dropped a running call")
	}
	tr.End("a", Created)
	tr.Forget("a")
	if tr.State("a") != Unknown {
		t.Error("Forget kept a finished call")
	}
}

func TestBeginTellsItsOwnSubscribersOnlyOfCallsThatStart(t *testing.T) {
	tr := NewTracker()
	var begun, ended []types.UID
	tr.SubscribeBegin(func(uid types.UID) {
		// Told outside the lock: the state is readable from here.
		if tr.State(uid) != Calling {
			t.Errorf("told of %s before it was Calling", uid)
		}
		begun = append(begun, uid)
	})
	tr.Subscribe(func(uid types.UID) { ended = append(ended, uid) })
	tr.Begin("a")
	tr.Begin("a") // refused: no second notice
	if len(begun) != 1 || begun[0] != "a" || len(ended) != 0 {
		t.Errorf("begun %v, ended %v; want [a], []", begun, ended)
	}
	tr.End("a", Final)
	if len(begun) != 1 || len(ended) != 1 {
		t.Errorf("after End: begun %v, ended %v", begun, ended)
	}
}
