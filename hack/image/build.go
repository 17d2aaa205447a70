package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Options describe the image: one static binary per platform, on an empty
// base, run as a non-root user.
type Options struct {
	// Binaries maps a platform ("linux/amd64") to the static binary for it.
	Binaries map[string]string
	// Reference names the image in the archive, e.g.
	// csi-protect/csi-provisioner:v0.1.0; docker and podman tag it so.
	Reference string
	Version   string
	Revision  string
	// Created stamps the image config; fixed (the revision's commit time)
	// so that the same inputs give the same digests.
	Created time.Time
}

const (
	entrypoint = "/csi-provisioner"
	// user is distroless' "nonroot": no /etc/passwd is needed for a
	// numeric user.
	user = "65532:65532"
)

// Index builds the multi-platform image index.
func Index(opts Options) (v1.ImageIndex, error) {
	index := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, platform := range sortedPlatforms(opts.Binaries) {
		p, err := v1.ParsePlatform(platform)
		if err != nil {
			return nil, fmt.Errorf("platform %q: %w", platform, err)
		}
		img, err := image(opts, *p, opts.Binaries[platform])
		if err != nil {
			return nil, fmt.Errorf("image for %s: %w", platform, err)
		}
		index = mutate.AppendManifests(index, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: p},
		})
	}
	return index, nil
}

func image(opts Options, platform v1.Platform, binary string) (v1.Image, error) {
	data, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	layerTar, err := singleFileTar(entrypoint[1:], data, opts.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.AppendLayers(base, layer)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Variant = platform.OS, platform.Architecture, platform.Variant
	cfg.Created = v1.Time{Time: opts.Created}
	cfg.Config.Entrypoint = []string{entrypoint}
	cfg.Config.User = user
	cfg.Config.Labels = labels(opts)
	return mutate.ConfigFile(img, cfg)
}

// labels are the OCI annotation keys, as labels of the image config.
func labels(opts Options) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "csi-provisioner",
		"org.opencontainers.image.description": "Kubernetes CSI external-provisioner sidecar that protects the whole volume lifecycle",
		"org.opencontainers.image.version":     opts.Version,
		"org.opencontainers.image.revision":    opts.Revision,
		"org.opencontainers.image.source":      "https://github.com/csi-protect/external-provisioner",
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
}

// singleFileTar is a layer holding one executable owned by root.
func singleFileTar(name string, data []byte, modTime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{
		Name: name, Mode: 0o755, Size: int64(len(data)), ModTime: modTime, Typeflag: tar.TypeReg, Format: tar.FormatPAX,
	}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(data); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteArchive writes the index as an OCI image layout (oci-layout,
// index.json, blobs/) packed in one tar: an "OCI archive", which
// `docker load` (25 and later), `podman load`, `skopeo copy oci-archive:`
// and `crane push` (after unpacking, as a layout) read. index.json names
// the image index with org.opencontainers.image.ref.name, which the
// loaders turn into the image's tag.
func WriteArchive(index v1.ImageIndex, reference, archive string) error {
	dir, err := os.MkdirTemp(filepath.Dir(archive), ".layout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := path.AppendIndex(index, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": reference,
		"io.containerd.image.name":          reference,
	})); err != nil {
		return err
	}
	return tarDirectory(dir, archive)
}

// tarDirectory packs dir's files, with paths relative to it, into archive.
func tarDirectory(dir, archive string) error {
	out, err := os.Create(archive)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(out)
	walkErr := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		if d.IsDir() {
			hdr.Name += "/"
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err := tw.Close(); err != nil && walkErr == nil {
		walkErr = err
	}
	if err := out.Close(); err != nil && walkErr == nil {
		walkErr = err
	}
	return walkErr
}
