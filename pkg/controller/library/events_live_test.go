package library

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	libcontroller "sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

// Library v10's failure events as the project relies on them, run live:
// their reasons, the texts the Adapter turns into upstream's, and their
// path through the client the library is given.

// failingProvision fails every Provision with err, noted as a wait if
// wait is set, as the provisioner notes one.
func failingProvision(l *liveLibrary, err error, wait bool) {
	l.provisioner.provision = func(_ context.Context, o libcontroller.ProvisionOptions) (*v1.PersistentVolume, libcontroller.ProvisioningState, error) {
		if wait {
			l.adapter.NoteWait(o.PVC.UID, ReasonProvisioningFailed, err.Error())
		}
		return nil, libcontroller.ProvisioningFinished, err
	}
}

// Library v10 posts a Provision error as a Warning ProvisioningFailed
// whose message is failurePrefix, the class and the error; through the
// Adapter it leaves with the error alone, as upstream's, and Normal when
// the provisioner noted it as a wait.
func TestTheLibrarysProvisionFailureLeavesAsUpstreams(t *testing.T) {
	const driverError = "rpc error: code = Internal desc = boom"
	for _, tc := range []struct {
		name        string
		plain, wait bool
		want        v1.Event
	}{
		{"library v10", true, false, v1.Event{Type: v1.EventTypeWarning, Message: failurePrefix + testClass + `": ` + driverError}},
		{"through the adapter", false, false, v1.Event{Type: v1.EventTypeWarning, Message: driverError}},
		{"a wait through the adapter", false, true, v1.Event{Type: v1.EventTypeNormal, Message: driverError}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLiveLibrary(t, []runtime.Object{newClaim("db"), newClass()}, liveOptions{plain: tc.plain})
			failingProvision(l, errors.New(driverError), tc.wait)
			l.start(t)
			ev := l.event(t, ReasonProvisioningFailed)
			if ev.Type != tc.want.Type || ev.Message != tc.want.Message {
				t.Fatalf("event %s %q, want %s %q", ev.Type, ev.Message, tc.want.Type, tc.want.Message)
			}
		})
	}
}

// Library v10 posts a Delete error as a Warning VolumeFailedDelete with
// the error alone, as upstream's; Normal when noted as a wait.
func TestTheLibrarysDeleteFailureLeavesAsUpstreams(t *testing.T) {
	const attached = "persistentvolume pvc-1 is still attached to node node-1"
	for _, wait := range []bool{false, true} {
		pv := releasedVolume("pvc-1")
		l := newLiveLibrary(t, []runtime.Object{pv, newClass()}, liveOptions{})
		l.provisioner.del = func(_ context.Context, pv *v1.PersistentVolume) error {
			if wait {
				l.adapter.NoteWait(pv.UID, ReasonVolumeFailedDelete, attached)
			}
			return errors.New(attached)
		}
		l.start(t)
		ev := l.event(t, ReasonVolumeFailedDelete)
		want := v1.EventTypeWarning
		if wait {
			want = v1.EventTypeNormal
		}
		if ev.Type != want || ev.Message != attached || ev.InvolvedObject.UID != pv.UID {
			t.Errorf("wait %v: event %s %q on %s, want %s %q on the PV", wait, ev.Type, ev.Message, ev.InvolvedObject.UID, want, attached)
		}
	}
}
