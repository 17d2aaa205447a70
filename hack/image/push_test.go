package main

import (
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// pushLayout does what `crane push <layout dir> <ref>` does with a layout of
// one image index, against an in-memory registry, and pulls the index back.
func pushLayout(t *testing.T, files map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	for path, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatalf("unpacked archive is not an OCI layout: %v", err)
	}
	top, err := l.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Manifests) != 1 || !top.Manifests[0].MediaType.IsIndex() {
		t.Fatalf("crane push needs one entry (an index) in index.json, got %d", len(top.Manifests))
	}
	index, err := l.ImageIndex(top.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}

	server := httptest.NewServer(registry.New())
	defer server.Close()
	host, err := url.Parse(server.URL)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(host.Host + "/csi-protect/csi-provisioner:" + testVersion)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(ref, index); err != nil {
		t.Fatalf("push: %v", err)
	}
	pulled, err := remote.Index(ref)
	if err != nil {
		t.Fatalf("pull: %v", err)
	}
	got, err := pulled.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got != top.Manifests[0].Digest {
		t.Errorf("pulled index %s, pushed %s", got, top.Manifests[0].Digest)
	}
}
