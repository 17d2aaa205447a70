package controller

import "github.com/csi-protect/external-provisioner/pkg/controller/library"

// Library returns the adapter through which cmd/csi-provisioner gives the
// provisioning library its client, informers and node lister, and hands
// it claims and PVs again. The provisioner tells it its waits, finalizer
// writes and deleted volumes.
func (p *Provisioner) Library() *library.Adapter { return p.library }
