package claimdeletion

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"

	"github.com/csi-protect/external-provisioner/test/bench/internal/measure"
)

// podListBytes returns the bytes kube-apiserver has sent in answer to pod
// LIST requests since it started, from its apiserver_response_sizes
// histogram. Watches are not in it.
func podListBytes(ctx context.Context, admin kubernetes.Interface) (float64, error) {
	body, err := admin.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("read kube-apiserver metrics: %w", err)
	}
	m, err := measure.ParseMetrics(body)
	if err != nil {
		return 0, fmt.Errorf("kube-apiserver metrics: %w", err)
	}
	return m.Sum("apiserver_response_sizes_sum", map[string]string{"group": "", "resource": "pods", "verb": "LIST"})
}
