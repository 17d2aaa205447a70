package testutil

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// PV reads a PV from the (fake) API server, failing the test if it cannot.
func PV(t testing.TB, client kubernetes.Interface, name string) *v1.PersistentVolume {
	t.Helper()
	pv, err := client.CoreV1().PersistentVolumes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pv
}

// UpdatePV changes a PV on the API server as a user does: it reads it,
// applies change and updates it, failing the test on any error. It does not
// wait for any cache.
func UpdatePV(t testing.TB, client kubernetes.Interface, name string, change func(*v1.PersistentVolume)) {
	t.Helper()
	pv := PV(t, client, name)
	change(pv)
	if _, err := client.CoreV1().PersistentVolumes().Update(context.Background(), pv, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
