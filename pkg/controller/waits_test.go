package controller

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/controller/library"
)

func TestFailuresThatAreWaits(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"driver Unavailable", status.Error(codes.Unavailable, "driver busy"), true},
		{"driver DeadlineExceeded", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), true},
		{"driver Aborted", status.Error(codes.Aborted, "an operation for this volume is running"), true},
		{"driver Canceled", status.Error(codes.Canceled, "context canceled"), true},
		{"volume still attached", &stillAttachedError{pv: "pvc-1", node: "node-1"}, true},
		{"CreateVolume of the claim running", &callRunningError{claim: "apps/db"}, true},
		{"driver InvalidArgument", status.Error(codes.InvalidArgument, "bad parameter"), false},
		{"driver Internal", status.Error(codes.Internal, "backend on fire"), false},
		{"driver ResourceExhausted", status.Error(codes.ResourceExhausted, "no space"), false},
		{"driver Unavailable wrapped with more to say", fmt.Errorf("created volume capacity 1 less than requested capacity 2. Cleanup of volume pvc-1 failed, volume is orphaned: %w",
			status.Error(codes.Unavailable, "driver busy")), false},
		{"missing secret", errors.New(`error getting secret db-creds in namespace apps: secrets "db-creds" not found`), false},
		{"ignored", &controller.IgnoredError{Reason: "volume of driver other"}, false},
		{"none", nil, false},
	}
	for _, tc := range cases {
		if got := isWait(tc.err); got != tc.want {
			t.Errorf("%s: isWait(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// The texts are upstream's: alerts match them.
func TestWaitErrorsKeepUpstreamsText(t *testing.T) {
	if got, want := (&stillAttachedError{pv: "pvc-1", node: "node-1"}).Error(), "persistentvolume pvc-1 is still attached to node node-1"; got != want {
		t.Errorf("attached: %q, want %q", got, want)
	}
	if got, want := (&callRunningError{claim: "apps/db"}).Error(), "another CreateVolume for claim apps/db is running"; got != want {
		t.Errorf("running: %q, want %q", got, want)
	}
}

func TestOnlyWaitsAreNoted(t *testing.T) {
	ctx := context.Background()
	wait, final := status.Error(codes.Unavailable, "noted test: busy"), status.Error(codes.InvalidArgument, "noted test: bad")
	e := newEnv(t, envObjects{})
	e.prov.noteWait(ctx, "claim-noted-1", library.ReasonProvisioningFailed, wait)
	e.prov.noteWait(ctx, "claim-noted-1", library.ReasonProvisioningFailed, final)
	if got := libraryEventType(t, e, "claim-noted-1", library.ReasonProvisioningFailed, wait.Error()); got != v1.EventTypeNormal {
		t.Errorf("an Unavailable CreateVolume is not noted as a wait: its event is %s", got)
	}
	if got := libraryEventType(t, e, "claim-noted-1", library.ReasonProvisioningFailed, final.Error()); got != v1.EventTypeWarning {
		t.Errorf("an InvalidArgument CreateVolume is noted as a wait: its event is %s", got)
	}
}

// libraryEventType is the type the library's Warning of this failure is
// sent with, through the library adapter's client.
func libraryEventType(t *testing.T, e *env, uid types.UID, reason, message string) string {
	t.Helper()
	event := &v1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "db.1", Namespace: testNamespace}, InvolvedObject: v1.ObjectReference{UID: uid},
		Type: v1.EventTypeWarning, Reason: reason, Message: message,
	}
	client := fake.NewClientset()
	if _, err := e.prov.Library().Client(client, nil).CoreV1().Events(testNamespace).CreateWithEventNamespace(event); err != nil {
		t.Fatal(err)
	}
	sent := client.Actions()[0].(k8stesting.CreateAction).GetObject().(*v1.Event)
	return sent.Type
}
