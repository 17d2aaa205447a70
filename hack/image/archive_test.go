package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The archive is read here with the standard library only, as a loader reads
// it, so that the test does not trust the library that wrote it.

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations"`
	Platform    *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

type index struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Manifests     []descriptor `json:"manifests"`
}

type manifest struct {
	MediaType string       `json:"mediaType"`
	Config    descriptor   `json:"config"`
	Layers    []descriptor `json:"layers"`
}

type imageConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       struct {
		Entrypoint []string          `json:"Entrypoint"`
		User       string            `json:"User"`
		Labels     map[string]string `json:"Labels"`
	} `json:"config"`
}

const (
	testVersion   = "v9.8.7-image-test"
	testReference = "example.test/csi-provisioner:v9.8.7-image-test"
)

// TestMakeImage runs `make image` and checks what a loader and a kubelet rely
// on in the archive it writes.
func TestMakeImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the sidecar for two platforms")
	}
	files := readArchive(t, makeImage(t))

	var layout struct {
		ImageLayoutVersion string `json:"imageLayoutVersion"`
	}
	decode(t, files, "oci-layout", &layout)
	if layout.ImageLayoutVersion != "1.0.0" {
		t.Errorf("oci-layout version %q, want 1.0.0", layout.ImageLayoutVersion)
	}

	var top index
	decode(t, files, "index.json", &top)
	if len(top.Manifests) != 1 {
		t.Fatalf("index.json names %d manifests, want the one image index", len(top.Manifests))
	}
	ref := top.Manifests[0]
	if ref.MediaType != "application/vnd.oci.image.index.v1+json" {
		t.Errorf("index.json names a %s, want an OCI image index", ref.MediaType)
	}
	if got := ref.Annotations["org.opencontainers.image.ref.name"]; got != testReference {
		t.Errorf("ref.name annotation %q, want %q", got, testReference)
	}

	var platforms index
	decode(t, files, blobPath(t, files, ref), &platforms)
	byArch := map[string]descriptor{}
	for _, m := range platforms.Manifests {
		if m.Platform == nil || m.Platform.OS != "linux" {
			t.Errorf("manifest %s has platform %+v, want linux/*", m.Digest, m.Platform)
			continue
		}
		byArch[m.Platform.Architecture] = m
	}
	if len(byArch) != 2 || byArch["amd64"].Digest == "" || byArch["arm64"].Digest == "" {
		t.Fatalf("image index platforms %v, want linux/amd64 and linux/arm64", keys(byArch))
	}

	t.Run("push", func(t *testing.T) { pushLayout(t, files) })

	for arch, wantMachine := range map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64} {
		t.Run(arch, func(t *testing.T) {
			binary := checkPlatformImage(t, files, byArch[arch], arch)
			checkStaticELF(t, binary, wantMachine)
			if arch == runtime.GOARCH {
				runVersion(t, binary)
			}
		})
	}
}

// checkPlatformImage checks one platform's manifest and config and returns
// the path of the binary extracted from its single layer.
func checkPlatformImage(t *testing.T, files map[string][]byte, desc descriptor, arch string) string {
	t.Helper()
	if desc.MediaType != "application/vnd.oci.image.manifest.v1+json" {
		t.Errorf("manifest media type %s, want OCI manifest", desc.MediaType)
	}
	var m manifest
	decode(t, files, blobPath(t, files, desc), &m)
	if len(m.Layers) != 1 {
		t.Fatalf("%d layers, want one holding the binary", len(m.Layers))
	}

	var cfg imageConfig
	decode(t, files, blobPath(t, files, m.Config), &cfg)
	if cfg.OS != "linux" || cfg.Architecture != arch {
		t.Errorf("config platform %s/%s, want linux/%s", cfg.OS, cfg.Architecture, arch)
	}
	if got := strings.Join(cfg.Config.Entrypoint, " "); got != "/csi-provisioner" {
		t.Errorf("entrypoint %q, want /csi-provisioner", got)
	}
	if cfg.Config.User != "65532:65532" {
		t.Errorf("user %q, want the non-root 65532:65532", cfg.Config.User)
	}
	for key, want := range map[string]string{
		"org.opencontainers.image.version":  testVersion,
		"org.opencontainers.image.revision": gitHead(t),
		"org.opencontainers.image.title":    "csi-provisioner",
	} {
		if got := cfg.Config.Labels[key]; got != want {
			t.Errorf("label %s = %q, want %q", key, got, want)
		}
	}
	if cfg.Config.Labels["org.opencontainers.image.source"] == "" {
		t.Error("no org.opencontainers.image.source label")
	}

	layer := m.Layers[0]
	if layer.MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" {
		t.Errorf("layer media type %s, want OCI gzip layer", layer.MediaType)
	}
	return extractBinary(t, files[blobPath(t, files, layer)])
}

func extractBinary(t *testing.T, gzipped []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gzipped))
	if err != nil {
		t.Fatalf("layer is not gzip: %v", err)
	}
	tr := tar.NewReader(zr)
	var names []string
	var binary string
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("layer tar: %v", err)
		}
		names = append(names, hdr.Name)
		if hdr.Name != "csi-provisioner" {
			continue
		}
		if hdr.Mode&0o111 == 0 || hdr.Uid != 0 {
			t.Errorf("csi-provisioner mode %o uid %d, want executable and root-owned", hdr.Mode, hdr.Uid)
		}
		binary = filepath.Join(t.TempDir(), "csi-provisioner")
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(binary, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if binary == "" || len(names) != 1 {
		t.Fatalf("layer holds %v, want only csi-provisioner", names)
	}
	return binary
}

func checkStaticELF(t *testing.T, path string, want elf.Machine) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("binary is not ELF: %v", err)
	}
	defer f.Close()
	if f.Machine != want {
		t.Errorf("binary is for %v, want %v", f.Machine, want)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("binary asks for a dynamic loader; an empty base has none")
		}
	}
}

func runVersion(t *testing.T, binary string) {
	t.Helper()
	out, err := exec.Command(binary, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("csi-provisioner --version: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), testVersion) {
		t.Errorf("csi-provisioner --version printed %q, want %s in it", out, testVersion)
	}
}

// makeImage runs `make image` into a temporary directory.
func makeImage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("make", "-C", "../..", "image", "VERSION="+testVersion, "IMAGE="+testReference)
	cmd.Env = append(os.Environ(), "IMAGE_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make image: %v\n%s", err, out)
	}
	return filepath.Join(dir, "csi-provisioner.tar")
}

func readArchive(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[hdr.Name] = data
	}
}

// blobPath finds a descriptor's blob and checks its size and digest.
func blobPath(t *testing.T, files map[string][]byte, desc descriptor) string {
	t.Helper()
	algorithm, hexDigest, ok := strings.Cut(desc.Digest, ":")
	if !ok || algorithm != "sha256" {
		t.Fatalf("digest %q, want sha256:<hex>", desc.Digest)
	}
	path := "blobs/sha256/" + hexDigest
	data, ok := files[path]
	if !ok {
		t.Fatalf("archive has no %s", path)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != hexDigest || int64(len(data)) != desc.Size {
		t.Fatalf("%s does not match its descriptor (size %d, want %d)", path, len(data), desc.Size)
	}
	return path
}

func decode(t *testing.T, files map[string][]byte, name string, into any) {
	t.Helper()
	data, ok := files[name]
	if !ok {
		t.Fatalf("archive has no %s", name)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func gitHead(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func keys(m map[string]descriptor) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
