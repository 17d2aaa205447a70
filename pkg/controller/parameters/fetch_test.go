package parameters

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func secret(namespace, name string, data map[string][]byte) *v1.Secret {
	return &v1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: data}
}

func TestFetchSecret(t *testing.T) {
	client := fake.NewClientset(
		secret("kube-system", "creds", map[string][]byte{"user": []byte("admin"), "key": []byte("s3cr\x00t")}),
		secret("team-a", "empty", nil),
	)
	ctx := context.Background()

	got, err := FetchSecret(ctx, client.CoreV1(), &v1.SecretReference{Namespace: "kube-system", Name: "creds"})
	if err != nil {
		t.Fatalf("FetchSecret: %v", err)
	}
	if want := map[string]string{"user": "admin", "key": "s3cr\x00t"}; !maps.Equal(got, want) {
		t.Errorf("FetchSecret = %q, want %q", got, want)
	}

	got, err = FetchSecret(ctx, client.CoreV1(), &v1.SecretReference{Namespace: "team-a", Name: "empty"})
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("FetchSecret of a secret without data = %#v, %v; want empty map", got, err)
	}
}

func TestFetchSecretNilRef(t *testing.T) {
	client := fake.NewClientset()
	got, err := FetchSecret(context.Background(), client.CoreV1(), nil)
	if got != nil || err != nil {
		t.Errorf("FetchSecret(nil) = %v, %v; want nil, nil", got, err)
	}
	if actions := client.Actions(); len(actions) != 0 {
		t.Errorf("FetchSecret(nil) called the API: %v", actions)
	}
}

func TestFetchSecretMissing(t *testing.T) {
	client := fake.NewClientset(secret("other", "creds", nil))
	got, err := FetchSecret(context.Background(), client.CoreV1(), &v1.SecretReference{Namespace: "team-a", Name: "creds"})
	if got != nil {
		t.Errorf("FetchSecret = %v, want nil", got)
	}
	// Upstream v6.3.0's getCredentials text, which users' alerts match.
	if want := `error getting secret creds in namespace team-a: secrets "creds" not found`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if !apierrors.IsNotFound(err) {
		t.Errorf("error %v is not NotFound", err)
	}
}

func TestFetchSecretAPIError(t *testing.T) {
	client := fake.NewClientset()
	boom := errors.New("connection refused")
	client.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, boom
	})
	_, err := FetchSecret(context.Background(), client.CoreV1(), &v1.SecretReference{Namespace: "ns", Name: "s"})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "secret s in namespace ns") {
		t.Errorf("error = %v, want it to wrap %v and name secret s in namespace ns", err, boom)
	}
}
