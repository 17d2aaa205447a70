// Command image assembles the csi-provisioner OCI image without a container
// engine: one layer with the static binary per platform, on an empty base,
// written as an OCI archive. make image builds the binaries and runs it.
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

func main() {
	var opts Options
	var binaries, out, created string
	flag.StringVar(&binaries, "binaries", "", "comma-separated platform=path pairs, e.g. linux/amd64=bin/amd64/csi-provisioner")
	flag.StringVar(&opts.Reference, "image", "csi-protect/csi-provisioner:latest", "image reference recorded in the archive")
	flag.StringVar(&opts.Version, "version", "", "version label")
	flag.StringVar(&opts.Revision, "revision", "", "revision label (git commit)")
	flag.StringVar(&created, "created", "", "image creation time, RFC 3339 (default: the Unix epoch, for reproducible digests)")
	flag.StringVar(&out, "out", "_output/image/csi-provisioner.tar", "archive to write")
	flag.Parse()

	if err := run(opts, binaries, created, out); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(opts Options, binaries, created, out string) error {
	var err error
	if opts.Binaries, err = parseBinaries(binaries); err != nil {
		return err
	}
	opts.Created = time.Unix(0, 0).UTC()
	if created != "" {
		if opts.Created, err = time.Parse(time.RFC3339, created); err != nil {
			return fmt.Errorf("--created: %w", err)
		}
	}
	index, err := Index(opts)
	if err != nil {
		return err
	}
	if err := WriteArchive(index, opts.Reference, out); err != nil {
		return err
	}
	digest, err := index.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s: %s (%s), index %s\n", out, opts.Reference, strings.Join(sortedPlatforms(opts.Binaries), ", "), digest)
	return nil
}

func parseBinaries(s string) (map[string]string, error) {
	binaries := map[string]string{}
	for item := range strings.SplitSeq(s, ",") {
		platform, path, ok := strings.Cut(item, "=")
		if !ok || platform == "" || path == "" {
			return nil, fmt.Errorf("--binaries: malformed item %q, want platform=path", item)
		}
		binaries[platform] = path
	}
	return binaries, nil
}

func sortedPlatforms(binaries map[string]string) []string {
	return slices.Sorted(maps.Keys(binaries))
}
