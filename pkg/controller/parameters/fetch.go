package parameters

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"
)

// FetchSecret reads the secret ref points to and returns its data as the
// string map CSI requests carry. A nil ref means "no secret" and gives a nil
// map. client is typically clientset.CoreV1(). The API error is wrapped, so
// apierrors.IsNotFound works on the result.
func FetchSecret(ctx context.Context, client typedcorev1.SecretsGetter, ref *v1.SecretReference) (map[string]string, error) {
	if ref == nil {
		return nil, nil
	}
	// client-go logs response bodies with the context's logger from -v=8
	// on: a Secret's data must never reach the log, whatever the level.
	secret, err := client.Secrets(ref.Namespace).Get(klog.NewContext(ctx, logr.Discard()), ref.Name, metav1.GetOptions{})
	if err != nil {
		// Upstream's text, which reaches the claim's events.
		return nil, fmt.Errorf("error getting secret %s in namespace %s: %w", ref.Name, ref.Namespace, err)
	}
	// Only Data: StringData is write-only and never returned by the API server.
	credentials := make(map[string]string, len(secret.Data))
	for k, v := range secret.Data {
		credentials[k] = string(v)
	}
	return credentials, nil
}
