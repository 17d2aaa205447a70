package gobench

import (
	"io"
	"strconv"
)

// Packages are the packages with Go benchmarks of the sidecar's hot
// paths, relative to the repository root.
var Packages = []string{
	"./cmd/csi-provisioner",       // the informer transform
	"./pkg/controller",            // Provision and the CreateVolume request
	"./pkg/claimprotection",       // claim protection sync
	"./pkg/controller/parameters", // StorageClass parameters and secret templates
	"./pkg/pvcprotection",         // PVC protection sync
	"./pkg/pvprotection",          // PV protection sync
	"./pkg/localvolume/devices",   // the local volume agent's lsblk parsing
	"./internal/cmdutil",          // what the event recorder keeps
}

// Options say how to run the Go benchmarks.
type Options struct {
	Packages []string
	// Count is go test's -count: each benchmark's runs, for the spread.
	Count int
	// Benchtime is go test's -benchtime; empty for its default, 1s.
	Benchtime string
	// RawOutput is the file for go test's output; empty keeps none.
	RawOutput string
	// Progress receives go test's output as it comes; nil discards it.
	Progress io.Writer
}

// DefaultOptions fit the full `make bench`: about a minute on two
// cores, compilation included, with three runs for the spread.
func DefaultOptions() Options {
	return Options{Packages: Packages, Count: 3, Benchtime: "300ms"}
}

// QuickOptions check that every benchmark runs: one short run each,
// so that compilation is most of the time.
func QuickOptions() Options {
	return Options{Packages: Packages, Count: 1, Benchtime: "100ms"}
}

func (o Options) args() []string {
	args := []string{"test", "-run", "^$", "-bench", ".", "-benchmem", "-count", strconv.Itoa(max(o.Count, 1))}
	if o.Benchtime != "" {
		args = append(args, "-benchtime", o.Benchtime)
	}
	return append(args, o.Packages...)
}
