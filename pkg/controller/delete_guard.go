package controller

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

var _ controller.DeletionGuard = &Provisioner{}

// ShouldDelete keeps the library from deleting a volume the recycle bin
// keeps, and from deleting a volume twice: a PV whose volume this process
// already deleted, seen again from a stale copy, is left alone (see
// library.Adapter.AlreadyDeleted).
func (p *Provisioner) ShouldDelete(ctx context.Context, pv *v1.PersistentVolume) bool {
	if p.opts.RecycleBin != nil && p.opts.RecycleBin.Holds(ctx, pv) {
		return false
	}
	return !p.library.AlreadyDeleted(ctx, pv)
}
