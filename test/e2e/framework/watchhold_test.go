package framework

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// fakeWatchServer serves a watch of claims whose events the test sends,
// over TLS with a control plane's serving certificate.
func fakeWatchServer(t *testing.T, pki *pkiFiles, events <-chan string) *httptest.Server {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(pki.servingCert, pki.servingKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" || r.Header.Get("Accept") != "application/json" {
			http.Error(w, "want a JSON watch, got "+r.URL.String()+" accepting "+r.Header.Get("Accept"), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case ev := <-events:
				_, _ = w.Write([]byte(ev + "\n"))
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// A held watch's events wait in the proxy: Deliver lets the first ones
// through while they match and keeps the rest, Release lets everything go,
// in order. The client verifies the proxy with the cluster's CA alone.
func TestWatchHoldProxyHoldsDeliversAndReleasesInOrder(t *testing.T) {
	pki, err := writePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan string)
	upstream := fakeWatchServer(t, pki, events)
	c := &Cluster{host: upstream.URL, caPEM: pki.caPEM, servingCert: pki.servingCert, servingKey: pki.servingKey}
	p, err := c.StartWatchHoldProxy("persistentvolumeclaims")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pki.caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := client.Get(p.URL() + "/api/v1/namespaces/default/persistentvolumeclaims?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch through the proxy: %s", resp.Status)
	}
	dec := json.NewDecoder(resp.Body)
	next := func() string {
		t.Helper()
		var ev struct {
			Object struct {
				Metadata struct {
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("read an event: %v", err)
		}
		return ev.Object.Metadata.ResourceVersion
	}
	event := func(rv, volumeName string) string {
		return `{"type":"MODIFIED","object":{"metadata":{"resourceVersion":"` + rv + `"},"spec":{"volumeName":"` + volumeName + `"}}}`
	}

	events <- event("1", "")
	if got := next(); got != "1" {
		t.Fatalf("first event: resourceVersion %q, want 1", got)
	}
	p.Hold()
	events <- event("2", "")
	events <- event("3", "pv")
	events <- event("4", "")
	// The proxy reads upstream events on a goroutine of its own.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitHeld(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if n := p.Held(); n != 3 {
		t.Fatalf("%d event(s) held, want 3", n)
	}
	n := p.Deliver(func(ev WatchEvent) bool {
		var obj struct {
			Spec struct {
				VolumeName string `json:"volumeName"`
			} `json:"spec"`
		}
		return json.Unmarshal(ev.Object, &obj) == nil && obj.Spec.VolumeName == ""
	})
	if n != 1 || p.Held() != 2 {
		t.Fatalf("Deliver let %d through and holds %d, want 1 and 2: it must stop at the first refused", n, p.Held())
	}
	if got := next(); got != "2" {
		t.Fatalf("delivered event: resourceVersion %q, want 2", got)
	}
	p.Release()
	for _, want := range []string{"3", "4"} {
		if got := next(); got != want {
			t.Fatalf("released event: resourceVersion %q, want %s", got, want)
		}
	}
}
