package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// the event client LibraryClient hands it.
func libraryRecorder(t *testing.T, client *fake.Clientset) record.EventRecorder {
	b := record.NewBroadcaster(record.WithContext(context.Background()))
	t.Cleanup(b.Shutdown)
	events := (&Provisioner{}).LibraryClient(client, nil).CoreV1().Events(v1.NamespaceAll)
	if _, ok := events.(libraryEvents); !ok {
		t.Fatalf("LibraryClient hands the library events client %T, want libraryEvents", events)
	}
	b.StartRecordingToSink(&corev1client.EventSinkImpl{Interface: events})
	return b.NewRecorder(scheme.Scheme, v1.EventSource{Component: testDriver + "_host_uid"})
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
	recorder := libraryRecorder(t, client)
	claim := newClaim("db", "1Gi")
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
	recorder := libraryRecorder(t, client)
	claim := newClaim("db", "1Gi")
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
