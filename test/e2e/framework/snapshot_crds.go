package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// SnapshotCRDDir is the folder under the control-plane dir where
// hack/build-snapshot-stack.sh copies the snapshot CRDs of the
// external-snapshotter client module the snapshot programs are built with.
const SnapshotCRDDir = "snapshot-crds"

// SnapshotCRDs are the CRDs InstallSnapshotCRDs installs and waits for. The
// group snapshot CRDs are left out: nothing here uses them, and both
// programs run with that feature off.
var SnapshotCRDs = []string{
	"volumesnapshotclasses.snapshot.storage.k8s.io",
	"volumesnapshotcontents.snapshot.storage.k8s.io",
	"volumesnapshots.snapshot.storage.k8s.io",
}

// snapshotCRDFile is where a CRD's manifest is: the client module names its
// files group_plural.yaml.
func snapshotCRDFile(controlPlaneDir, crd string) string {
	plural, group, _ := strings.Cut(crd, ".")
	return filepath.Join(controlPlaneDir, SnapshotCRDDir, group+"_"+plural+".yaml")
}

// crdEstablishTimeout bounds the wait for the apiserver to serve a new CRD,
// which takes well under a second when the machine is not overloaded.
const crdEstablishTimeout = 30 * time.Second

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// checkSnapshotCRDs reports missing CRD manifests in one error that says how
// to get them.
func checkSnapshotCRDs(controlPlaneDir string) error {
	for _, crd := range SnapshotCRDs {
		if _, err := os.Stat(snapshotCRDFile(controlPlaneDir, crd)); err != nil {
			return fmt.Errorf("missing the manifest of CRD %s: run `make e2e-tools` (%w)", crd, err)
		}
	}
	return nil
}

// InstallSnapshotCRDs applies the VolumeSnapshotClass, VolumeSnapshotContent
// and VolumeSnapshot CRDs from controlPlaneDir (empty means
// DefaultControlPlaneDir()) with cfg, and waits until the apiserver serves
// each one (its Established condition), so that clients can use them as soon
// as it returns. Applying them to a cluster that has them already is
// harmless.
func InstallSnapshotCRDs(ctx context.Context, controlPlaneDir string, cfg *rest.Config) error {
	logger := klog.FromContext(ctx)
	if controlPlaneDir == "" {
		var err error
		if controlPlaneDir, err = DefaultControlPlaneDir(); err != nil {
			return err
		}
	}
	if err := checkSnapshotCRDs(controlPlaneDir); err != nil {
		return err
	}
	start := time.Now()
	files := make([]string, len(SnapshotCRDs))
	for i, crd := range SnapshotCRDs {
		files[i] = snapshotCRDFile(controlPlaneDir, crd)
	}
	if err := installCRDs(ctx, cfg, SnapshotCRDs, files); err != nil {
		return err
	}
	logger.V(1).Info("Snapshot CRDs established", "crds", SnapshotCRDs, "duration", time.Since(start).Round(time.Millisecond))
	return nil
}

// installCRDs applies the CRD manifests files, of the CRDs names, and waits
// until the apiserver serves each one.
func installCRDs(ctx context.Context, cfg *rest.Config, names, files []string) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for i, name := range names {
		if _, err := ApplyManifests(ctx, cfg, ManifestOptions{Path: files[i]}); err != nil {
			return fmt.Errorf("install CRD %s: %w", name, err)
		}
	}
	// Applying all first lets the apiserver establish them in parallel.
	for _, name := range names {
		if err := waitCRDEstablished(ctx, dyn, name); err != nil {
			return err
		}
	}
	return nil
}

// InstallSnapshotCRDs installs the snapshot CRDs built next to this
// cluster's binaries; see the function of the same name.
func (c *Cluster) InstallSnapshotCRDs(ctx context.Context) error {
	return InstallSnapshotCRDs(ctx, c.opts.BinDir, c.restConfig)
}

// waitCRDEstablished polls a CRD until its Established condition is True.
func waitCRDEstablished(ctx context.Context, dyn dynamic.Interface, name string) error {
	ctx, cancel := context.WithTimeout(ctx, crdEstablishTimeout)
	defer cancel()
	return waitUntil(ctx, "CRD "+name+" to be established", nil, func(ctx context.Context) (bool, error) {
		crd, err := dyn.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return crdEstablished(crd)
	})
}

// crdEstablished reports whether a CRD's Established condition is True; the
// error says what the condition is instead, for a wait that times out.
func crdEstablished(crd *unstructured.Unstructured) (bool, error) {
	conds, _, err := unstructured.NestedSlice(crd.Object, "status", "conditions")
	if err != nil {
		return false, err
	}
	for _, c := range conds {
		cond, ok := c.(map[string]any)
		if !ok || cond["type"] != "Established" {
			continue
		}
		if cond["status"] == "True" {
			return true, nil
		}
		return false, fmt.Errorf("CRD %s is not established: %v: %v", crd.GetName(), cond["reason"], cond["message"])
	}
	return false, fmt.Errorf("CRD %s has no Established condition yet", crd.GetName())
}

// SnapshotCRDsEstablished returns nil if the apiserver serves every CRD in
// SnapshotCRDs, else an error naming the first one it does not, for tests
// that check an installation.
func SnapshotCRDsEstablished(ctx context.Context, cfg *rest.Config) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, name := range SnapshotCRDs {
		crd, err := dyn.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if ok, err := crdEstablished(crd); !ok {
			return err
		}
	}
	return nil
}
