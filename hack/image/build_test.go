package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSameInputsGiveTheSameIndexDigest(t *testing.T) {
	dir := t.TempDir()
	binaries := map[string]string{}
	for _, arch := range []string{"amd64", "arm64"} {
		path := filepath.Join(dir, arch)
		if err := os.WriteFile(path, []byte("binary for "+arch), 0o755); err != nil {
			t.Fatal(err)
		}
		binaries["linux/"+arch] = path
	}
	opts := Options{Binaries: binaries, Reference: "r:v1", Version: "v1", Revision: "abc", Created: time.Unix(1700000000, 0).UTC()}

	digest := func(opts Options) string {
		index, err := Index(opts)
		if err != nil {
			t.Fatal(err)
		}
		d, err := index.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d.String()
	}
	first, second := digest(opts), digest(opts)
	if first != second {
		t.Errorf("two builds of the same inputs: %s and %s", first, second)
	}
	opts.Revision = "def"
	if third := digest(opts); third == first {
		t.Error("another revision label gave the same digest")
	}
}

func TestMalformedBinariesFlagIsRefused(t *testing.T) {
	for _, value := range []string{"", "linux/amd64", "=bin/x", "linux/amd64=bin/x,"} {
		if _, err := parseBinaries(value); err == nil {
			t.Errorf("--binaries=%q accepted", value)
		}
	}
	got, err := parseBinaries("linux/amd64=a,linux/arm64=b")
	if err != nil || got["linux/amd64"] != "a" || got["linux/arm64"] != "b" {
		t.Errorf("parseBinaries = %v, %v", got, err)
	}
}

func TestUnknownPlatformIsRefused(t *testing.T) {
	if _, err := Index(Options{Binaries: map[string]string{"linux/amd64/v9/x": "nowhere"}}); err == nil {
		t.Error("Index accepted a malformed platform")
	}
}
