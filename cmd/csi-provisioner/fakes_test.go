package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/csi-protect/external-provisioner/internal/testutil/fakecsi"
)

const testDriverName = "test.csi.example.com"

// newDriver is a controller plugin with the controller capabilities caps.
func newDriver(caps ...csi.ControllerServiceCapability_RPC_Type) *fakecsi.Driver {
	return &fakecsi.Driver{
		Name:           testDriverName,
		PluginCaps:     []csi.PluginCapability_Service_Type{csi.PluginCapability_Service_CONTROLLER_SERVICE},
		ControllerCaps: caps,
	}
}

func provisioningDriver() *fakecsi.Driver {
	return newDriver(csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME)
}

// fakeAPIServer is just enough of a Kubernetes API server for start-up:
// empty lists, idle watches, events and Leases.
type fakeAPIServer struct {
	*httptest.Server

	closing  chan struct{}
	keepOpen bool

	mu      sync.Mutex
	watched map[string]bool
	leases  map[string][]byte
	// requested are the resources asked for at all; forbidden those
	// answered 403, as with RBAC without their rule.
	requested map[string]bool
	forbidden map[string]bool
	// lists, set before the first request, are served instead of empty
	// lists for their resources, in protobuf when the client accepts it.
	lists map[string]encodedList
}

var listKinds = map[string]string{
	"persistentvolumeclaims": "PersistentVolumeClaimList",
	"persistentvolumes":      "PersistentVolumeList",
	"storageclasses":         "StorageClassList",
	"nodes":                  "NodeList",
	"csinodes":               "CSINodeList",
	"volumeattachments":      "VolumeAttachmentList",
}

// newFakeAPIServer starts a server that closes when the test ends, after
// the test's later cleanups (such as stopping run) are done.
func newFakeAPIServer(t *testing.T) *fakeAPIServer {
	a := &fakeAPIServer{closing: make(chan struct{}), watched: map[string]bool{}, leases: map[string][]byte{},
		requested: map[string]bool{}, forbidden: map[string]bool{}}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(func() {
		if a.keepOpen {
			return
		}
		close(a.closing)
		a.Server.Close()
	})
	return a
}

func (a *fakeAPIServer) sawWatch(resource string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.watched[resource]
}

func (a *fakeAPIServer) sawRequest(resource string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requested[resource]
}

// forbid answers every request for resource with 403 Forbidden.
func (a *fakeAPIServer) forbid(resource string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.forbidden[resource] = true
}

func (a *fakeAPIServer) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	w.Header().Set("Content-Type", "application/json")

	if strings.HasPrefix(r.URL.Path, "/apis/coordination.k8s.io/") {
		a.serveLease(w, r, parts[len(parts)-1])
		return
	}
	if parts[len(parts)-1] == "events" || (len(parts) > 1 && parts[len(parts)-2] == "events") {
		body, _, err := decodeObject(r)
		if err != nil {
			writeStatus(w, http.StatusBadRequest, "BadRequest")
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
		return
	}

	resource := parts[len(parts)-1]
	a.mu.Lock()
	a.requested[resource] = true
	forbidden := a.forbidden[resource]
	a.mu.Unlock()
	if forbidden {
		writeStatus(w, http.StatusForbidden, "Forbidden")
		return
	}
	kind, ok := listKinds[resource]
	if !ok || r.Method != http.MethodGet {
		writeStatus(w, http.StatusNotFound, "NotFound")
		return
	}
	apiVersion := "v1"
	if parts[0] == "apis" {
		apiVersion = parts[1] + "/" + parts[2]
	}
	q := r.URL.Query()
	switch {
	case q.Get("sendInitialEvents") == "true":
		// No streaming lists here: the reflector falls back to list+watch.
		writeStatus(w, http.StatusBadRequest, "BadRequest")
	case q.Get("watch") == "true":
		a.mu.Lock()
		a.watched[resource] = true
		a.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-a.closing:
		}
	case a.lists[resource].json != nil:
		a.lists[resource].write(w, r)
	default:
		fmt.Fprintf(w, `{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":"1"},"items":[]}`, kind, apiVersion)
	}
}

func (a *fakeAPIServer) serveLease(w http.ResponseWriter, r *http.Request, name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		lease, ok := a.leases[name]
		if !ok {
			writeStatus(w, http.StatusNotFound, "NotFound")
			return
		}
		_, _ = w.Write(lease)
	case http.MethodPost, http.MethodPut:
		_, obj, err := decodeObject(r)
		if err != nil {
			writeStatus(w, http.StatusBadRequest, "BadRequest")
			return
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			writeStatus(w, http.StatusBadRequest, "BadRequest")
			return
		}
		m.SetResourceVersion(fmt.Sprint(len(a.leases) + 2))
		body, _ := json.Marshal(obj)
		a.leases[m.GetName()] = body
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		_, _ = w.Write(body)
	default:
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed")
	}
}

// decodeObject reads a request body in whatever encoding the client chose
// (the provisioner's clients send protobuf) and returns it as JSON too.
func decodeObject(r *http.Request) ([]byte, runtime.Object, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, nil, err
	}
	obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	body, err := json.Marshal(obj)
	return body, obj, err
}

// encodedList is a list in both encodings a client may ask for.
type encodedList struct {
	json, protobuf []byte
}

// encodeList encodes list once for every request: a server that kept the
// objects would add them to the heap of the process measured.
func encodeList(list runtime.Object) (encodedList, error) {
	gvks, _, err := scheme.Scheme.ObjectKinds(list)
	if err != nil {
		return encodedList{}, err
	}
	encode := func(mediaType string) ([]byte, error) {
		info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
		return runtime.Encode(scheme.Codecs.EncoderForVersion(info.Serializer, gvks[0].GroupVersion()), list)
	}
	var l encodedList
	if l.json, err = encode(runtime.ContentTypeJSON); err != nil {
		return l, err
	}
	l.protobuf, err = encode(runtime.ContentTypeProtobuf)
	return l, err
}

// write sends the list in protobuf if the client accepts it, else JSON.
func (l encodedList) write(w http.ResponseWriter, r *http.Request) {
	body, mediaType := l.json, runtime.ContentTypeJSON
	if strings.Contains(r.Header.Get("Accept"), runtime.ContentTypeProtobuf) {
		body, mediaType = l.protobuf, runtime.ContentTypeProtobuf
	}
	w.Header().Set("Content-Type", mediaType)
	_, _ = w.Write(body)
}

func writeStatus(w http.ResponseWriter, code int, reason string) {
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d}`, reason, code)
}

// writeKubeconfig points a kubeconfig at server.
func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
contexts:
- name: test
  context:
    cluster: test
    user: test
current-context: test
users:
- name: test
  user: {}
`, server)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// freeAddress returns a loopback address nothing listens on right now.
func freeAddress(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}
