package testutil

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
)

func TestAnswerWithAnswersWithoutTheTracker(t *testing.T) {
	client := fake.NewClientset()
	answer := NewClaim("apps", "db", WithResourceVersion("7"))
	AnswerWith(client, "update", "persistentvolumeclaims", answer)
	got, err := client.CoreV1().PersistentVolumeClaims("apps").Update(context.Background(), NewClaim("apps", "db"), metav1.UpdateOptions{})
	if err != nil || got.ResourceVersion != "7" {
		t.Errorf("update answered %+v, %v; want the answer given", got, err)
	}
	if _, ok := Find(t, client.CoreV1().PersistentVolumeClaims("apps"), "db"); ok {
		t.Error("the answered update reached the tracker")
	}
	if n := len(Actions(client.Actions(), Verb("update"))); n != 1 {
		t.Errorf("%d updates recorded, want 1", n)
	}
}

func TestQuietContextDropsLogs(t *testing.T) {
	if logger := klog.FromContext(QuietContext()); logger.GetSink() != nil && logger.Enabled() {
		t.Error("the quiet context's logger is enabled")
	}
}
