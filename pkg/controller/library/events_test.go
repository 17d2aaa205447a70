package library

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestUpstreamEventMessage(t *testing.T) {
	const rpcErr = "rpc error: code = Internal desc = boom"
	cases := []struct{ name, reason, message, want string }{
		{"library's Provision failure", "ProvisioningFailed", `failed to provision volume with StorageClass "fast": ` + rpcErr, rpcErr},
		{"aggregated", "ProvisioningFailed", `(combined from similar events): failed to provision volume with StorageClass "fast": ` + rpcErr, "(combined from similar events): " + rpcErr},
		{"a quote in the error", "ProvisioningFailed", `failed to provision volume with StorageClass "fast": secret "a": not found`, `secret "a": not found`},
		{"other failure of the library", "ProvisioningFailed", "Failed to save PV: boom", "Failed to save PV: boom"},
		{"other reason", "Provisioning", `failed to provision volume with StorageClass "fast": x`, `failed to provision volume with StorageClass "fast": x`},
		{"no class end", "ProvisioningFailed", `failed to provision volume with StorageClass "fast`, `failed to provision volume with StorageClass "fast`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := upstreamEventMessage(tc.reason, tc.message); got != tc.want {
				t.Errorf("upstreamEventMessage(%q, %q) = %q, want %q", tc.reason, tc.message, got, tc.want)
			}
		})
	}
}

// libraryRecorder is a recorder built as the library builds its own, on
// the event client Client hands it.
func libraryRecorder(t *testing.T, client *fake.Clientset) (record.EventRecorder, *Adapter) {
	b := record.NewBroadcaster(record.WithContext(context.Background()))
	t.Cleanup(b.Shutdown)
	adapter := New(Options{})
	events := adapter.Client(client, nil).CoreV1().Events(v1.NamespaceAll)
	if _, ok := events.(libraryEvents); !ok {
		t.Fatalf("Client hands the library events client %T, want libraryEvents", events)
	}
	b.StartRecordingToSink(&corev1client.EventSinkImpl{Interface: events})
	return b.NewRecorder(scheme.Scheme, v1.EventSource{Component: testDriver + "_host_uid"}), adapter
}

func claimEvents(t *testing.T, client *fake.Clientset) []v1.Event {
	t.Helper()
	list, err := client.CoreV1().Events(testNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// A repeat of the library's failure is counted into the event sent first,
// which keeps upstream's message: the recorder must get back the message it
// keys its counting by.
func TestLibraryFailureRepeatsKeepUpstreamMessage(t *testing.T) {
	client := fake.NewClientset()
	recorder, _ := libraryRecorder(t, client)
	claim := newClaim("db")
	const failure = `failed to provision volume with StorageClass "fast": rpc error: code = Internal desc = boom`
	recorder.Event(claim, v1.EventTypeWarning, "ProvisioningFailed", failure)
	recorder.Event(claim, v1.EventTypeWarning, "ProvisioningFailed", failure)
	testutil.Eventually(t, 10*time.Second, "the repeat counted", func() bool {
		events := claimEvents(t, client)
		return len(events) == 1 && events[0].Count == 2
	})
	if got := claimEvents(t, client)[0].Message; got != "rpc error: code = Internal desc = boom" {
		t.Fatalf("message %q, want upstream's", got)
	}
}

// client-go combines more than ten similar events with different messages
// into one, patched with each new message: that patch carries upstream's
// message too.
func TestLibraryFailuresCombinedKeepUpstreamMessage(t *testing.T) {
	client := fake.NewClientset()
	recorder, _ := libraryRecorder(t, client)
	claim := newClaim("db")
	const n = 13
	for i := range n {
		recorder.Event(claim, v1.EventTypeWarning, "ProvisioningFailed",
			fmt.Sprintf(`failed to provision volume with StorageClass "fast": rpc error: code = Internal desc = boom %d`, i))
	}
	want := fmt.Sprintf("(combined from similar events): rpc error: code = Internal desc = boom %d", n-1)
	testutil.Eventually(t, 10*time.Second, "the last failure combined", func() bool {
		for _, ev := range claimEvents(t, client) {
			if ev.Message == want {
				return true
			}
		}
		return false
	})
	for _, ev := range claimEvents(t, client) {
		if upstreamEventMessage(ev.Reason, ev.Message) != ev.Message {
			t.Errorf("event %s sent with the library's prefix: %q", ev.Name, ev.Message)
		}
	}
}

// libraryFailure is the library's ProvisioningFailed message of a Provision
// error, before libraryEvents cuts its prefix.
func libraryFailure(err string) string {
	return `failed to provision volume with StorageClass "fast": ` + err
}

// claimOf is a claim with a UID of its own, so that a test's notes of
// waits name its claim alone.
func claimOf(name string, uid types.UID) *v1.PersistentVolumeClaim {
	claim := newClaim(name)
	claim.UID = uid
	return claim
}

func eventWith(t *testing.T, client *fake.Clientset, message string) (v1.Event, bool) {
	t.Helper()
	for _, ev := range claimEvents(t, client) {
		if ev.Message == message {
			return ev, true
		}
	}
	return v1.Event{}, false
}

// A Provision failure the provisioner noted as a wait leaves as a Normal
// event with upstream's reason and message, and its repeats are counted
// into it as any event's: the recorder gets back the type it knows.
func TestLibraryFailureThatIsAWaitIsNormalAndCounted(t *testing.T) {
	client := fake.NewClientset()
	recorder, adapter := libraryRecorder(t, client)
	claim := claimOf("db", "library-events-wait")
	const unavailable = "rpc error: code = Unavailable desc = driver busy"
	adapter.NoteWait(claim.UID, ReasonProvisioningFailed, unavailable)

	recorder.Event(claim, v1.EventTypeWarning, "ProvisioningFailed", libraryFailure(unavailable))
	recorder.Event(claim, v1.EventTypeWarning, "ProvisioningFailed", libraryFailure(unavailable))
	testutil.Eventually(t, 10*time.Second, "the repeat counted", func() bool {
		events := claimEvents(t, client)
		return len(events) == 1 && events[0].Count == 2
	})
	ev := claimEvents(t, client)[0]
	if ev.Type != v1.EventTypeNormal || ev.Reason != "ProvisioningFailed" || ev.Message != unavailable {
		t.Errorf("event %s %s %q, want Normal ProvisioningFailed %q", ev.Type, ev.Reason, ev.Message, unavailable)
	}
}

// A failure that was not noted as a wait keeps the library's Warning, next
// to a wait of the same object.
func TestLibraryFailureNotAWaitStaysWarning(t *testing.T) {
	client := fake.NewClientset()
	recorder, adapter := libraryRecorder(t, client)
	claim := claimOf("db", "library-events-final")
	const unavailable = "rpc error: code = Unavailable desc = driver busy"
	const invalid = "rpc error: code = InvalidArgument desc = bad parameter"
	adapter.NoteWait(claim.UID, ReasonProvisioningFailed, unavailable)

	recorder.Event(claim, v1.EventTypeWarning, "ProvisioningFailed", libraryFailure(unavailable))
	recorder.Event(claim, v1.EventTypeWarning, "ProvisioningFailed", libraryFailure(invalid))
	testutil.Eventually(t, 10*time.Second, "both failures sent", func() bool {
		return len(claimEvents(t, client)) == 2
	})
	for message, want := range map[string]string{unavailable: v1.EventTypeNormal, invalid: v1.EventTypeWarning} {
		if ev, ok := eventWith(t, client, message); !ok || ev.Type != want {
			t.Errorf("event %q is %q, want %s", message, ev.Type, want)
		}
	}
}

// A PV's VolumeFailedDelete turns the same way, and the library's other
// events (Normal, or Warnings of other reasons) are sent as they are.
func TestLibraryDeleteFailureThatIsAWaitIsNormal(t *testing.T) {
	client := fake.NewClientset()
	recorder, adapter := libraryRecorder(t, client)
	pv := releasedVolume("pvc-library-events")
	pv.UID = "library-events-attached"
	// The provisioner's wait while a VolumeAttachment names the PV.
	const attached = "persistentvolume pvc-library-events is still attached to node node-1"
	adapter.NoteWait(pv.UID, ReasonVolumeFailedDelete, attached)

	recorder.Event(pv, v1.EventTypeWarning, "VolumeFailedDelete", attached)
	testutil.Eventually(t, 10*time.Second, "the failure sent", func() bool {
		list, err := client.CoreV1().Events(metav1.NamespaceDefault).List(context.Background(), metav1.ListOptions{})
		return err == nil && len(list.Items) == 1
	})
	list, _ := client.CoreV1().Events(metav1.NamespaceDefault).List(context.Background(), metav1.ListOptions{})
	if ev := list.Items[0]; ev.Type != v1.EventTypeNormal || ev.Message != attached {
		t.Errorf("event %s %q, want Normal %q", ev.Type, ev.Message, attached)
	}

	// Only Warnings of the library's two failure reasons are turned.
	other := claimOf("db", "library-events-other")
	adapter.NoteWait(other.UID, "ProvisioningCleanupFailed", "x")
	ev := &v1.Event{Type: v1.EventTypeWarning, Reason: "ProvisioningCleanupFailed", Message: "x", InvolvedObject: v1.ObjectReference{UID: other.UID}}
	if got := sentEventType(adapter.waits, ev, "x"); got != v1.EventTypeWarning {
		t.Errorf("a ProvisioningCleanupFailed Warning is sent as %s", got)
	}
}

// An aggregated event (more than ten failures of the claim with different
// messages) is patched with each new message, and with its type: Normal
// while its message is a wait's, Warning once it is not.
func TestLibraryFailuresCombinedTakeTheTypeOfTheirMessage(t *testing.T) {
	client := fake.NewClientset()
	recorder, adapter := libraryRecorder(t, client)
	claim := claimOf("db", "library-events-combined")
	const n = 13
	wait := func(i int) string { return fmt.Sprintf("rpc error: code = Unavailable desc = busy %d", i) }
	for i := range n {
		adapter.NoteWait(claim.UID, ReasonProvisioningFailed, wait(i))
		recorder.Event(claim, v1.EventTypeWarning, "ProvisioningFailed", libraryFailure(wait(i)))
	}
	combinedWait := combinedPrefix + wait(n-1)
	testutil.Eventually(t, 10*time.Second, "the last wait combined", func() bool {
		_, ok := eventWith(t, client, combinedWait)
		return ok
	})
	combined, _ := eventWith(t, client, combinedWait)
	if combined.Type != v1.EventTypeNormal {
		t.Errorf("combined event of waits is %s, want Normal", combined.Type)
	}

	const final = "rpc error: code = Internal desc = backend on fire"
	recorder.Event(claim, v1.EventTypeWarning, "ProvisioningFailed", libraryFailure(final))
	testutil.Eventually(t, 10*time.Second, "the final failure combined", func() bool {
		_, ok := eventWith(t, client, combinedPrefix+final)
		return ok
	})
	if ev, _ := eventWith(t, client, combinedPrefix+final); ev.Name != combined.Name || ev.Type != v1.EventTypeWarning {
		t.Errorf("the final failure is event %s of type %s, want the combined event %s patched to Warning", ev.Name, ev.Type, combined.Name)
	}
}
