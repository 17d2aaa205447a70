package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// referenceGrantCRD is the Gateway API CRD hack/build-snapshot-stack.sh
// copies under the control-plane dir, and its object name.
const (
	gatewayCRDDir         = "gateway-crds"
	referenceGrantCRDFile = "gateway.networking.k8s.io_referencegrants.yaml"
	referenceGrantCRD     = "referencegrants.gateway.networking.k8s.io"
)

// InstallReferenceGrantCRD applies the Gateway API's ReferenceGrant CRD and
// waits until the apiserver serves it, for cross-namespace data sources.
// The sidecar looks for it at start-up: install it before starting one.
func (c *Cluster) InstallReferenceGrantCRD(ctx context.Context) error {
	dir := c.opts.BinDir
	if dir == "" {
		var err error
		if dir, err = DefaultControlPlaneDir(); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, gatewayCRDDir, referenceGrantCRDFile)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("missing the ReferenceGrant CRD manifest: run `make e2e-tools` (%w)", err)
	}
	return installCRDs(ctx, c.restConfig, []string{referenceGrantCRD}, []string{path})
}
