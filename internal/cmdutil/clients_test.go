package cmdutil

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// The clients are built in turn until one fails; the error names it, and
// no client is built after it.
func TestClientsStopAtTheFirstError(t *testing.T) {
	rc := &rest.Config{Host: "https://example.invalid", QPS: 5, Burst: 10}
	var built []string
	client := func(name string, err error) func(*rest.Config) (string, error) {
		return func(*rest.Config) (string, error) {
			built = append(built, name)
			return name, err
		}
	}
	var b Clients
	first := NewClient(&b, "first", client("first", nil), rc)
	NewClient(&b, "second", client("second", errors.New("refused")), rc)
	NewClient(&b, "third", client("third", nil), rc)
	if first != "first" || len(built) != 2 {
		t.Errorf("built %v, got %q first; want first and second only", built, first)
	}
	if b.Err == nil || b.Err.Error() != "creating second client: refused" {
		t.Errorf("error %v, want the second client's", b.Err)
	}
}

// The configurations are copies: the command's own stays as it was.
func TestClientConfigs(t *testing.T) {
	rc := &rest.Config{Host: "https://example.invalid", QPS: 5, Burst: 10}
	if c := ProtobufConfig(rc); c.ContentType != runtime.ContentTypeProtobuf || c.QPS != 5 {
		t.Errorf("protobuf config %+v", c)
	}
	if c := LimitedConfig(rc, 20, 40); c.QPS != 20 || c.Burst != 40 || c.Host != rc.Host {
		t.Errorf("limited config %+v", c)
	}
	if rc.ContentType != "" || rc.QPS != 5 || rc.Burst != 10 {
		t.Errorf("the original changed: %+v", rc)
	}
}
