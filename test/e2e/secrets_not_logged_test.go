//go:build e2e

package e2e

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/csi-protect/external-provisioner/test/e2e/framework"
)

// secretKinds are the StorageClass secret kinds, each given a secret of its
// own.
var secretKinds = []string{"provisioner", "controller-publish", "node-stage", "node-publish", "controller-expand", "node-expand", "controller-modify"}

// The sidecar at -v=10, with every secret kind set, provisions and deletes
// a volume, and no secret value appears in its log (as written or base64),
// in the events, or in its metrics: the provisioner secret it reads for
// CreateVolume and DeleteVolume included.
func TestSecretValuesNeverReachLogsEventsOrMetrics(t *testing.T) {
	httpFlag, metricsURL := metricsEndpoint(t)
	ctx, s := startStack(t, framework.StackOptions{
		Sidecar: framework.SidecarOptions{Verbosity: 10, ExtraArgs: []string{httpFlag}},
	})
	const ns = "tenant-secrets"
	createNamespace(ctx, t, s, ns)
	params := map[string]string{}
	var values []string
	for _, kind := range secretKinds {
		value := fmt.Sprintf("S3cr3t-%s-%d", kind, os.Getpid())
		values = append(values, value)
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: kind, Namespace: ns}, StringData: map[string]string{"password": value}}
		if _, err := s.Client().CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		params["csi.storage.k8s.io/"+kind+"-secret-name"] = kind
		params["csi.storage.k8s.io/"+kind+"-secret-namespace"] = ns
	}
	createStorageClass(ctx, t, s, "mock-all-secrets", withParameters(params))
	createClaim(ctx, t, s, ns, "data", "mock-all-secrets")
	_, pv := waitForClaimBound(ctx, t, s, ns, "data")
	deleteClaim(ctx, t, s, ns, "data")
	waitForPVGone(ctx, t, s, pv.Name)

	log, err := os.ReadFile(s.Sidecar().LogFile())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "DeleteVolume") || !strings.Contains(string(log), "Response Body") {
		t.Fatal("the log shows neither the CSI calls nor client-go's bodies: it is not a -v=10 log")
	}
	events, err := s.Client().CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var eventText strings.Builder
	for _, ev := range events.Items {
		eventText.WriteString(ev.Message + "\n")
	}
	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"log": string(log), "log's hex dumps": hexDumpText(string(log)),
		"events": eventText.String(), "metrics": string(metrics),
	}
	for _, value := range values {
		for _, form := range []string{value, base64.StdEncoding.EncodeToString([]byte(value))} {
			for where, text := range texts {
				if strings.Contains(text, form) {
					t.Errorf("secret value %q appears in the sidecar's %s", form, where)
				}
			}
		}
	}
}

var hexDumpLine = regexp.MustCompile(`^\s*[0-9a-f]{8}  [0-9a-f]{2} `)

// hexDumpText joins the text columns of the hex dumps in a log: client-go
// logs a protobuf body so, 16 bytes a line, which splits any value.
func hexDumpText(log string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(log, "\n") {
		start, end := strings.Index(line, "|"), strings.LastIndex(line, "|")
		if start >= 0 && end > start && hexDumpLine.MatchString(line) {
			b.WriteString(line[start+1 : end])
		}
	}
	return b.String()
}
