package controller

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// A failure of Provision or Delete that is a wait, which a retry resolves
// without anyone's help, is reported with a Normal event; any other keeps
// the library's (and upstream's) Warning, which is for what needs a
// person. The library posts those events itself, so the provisioner notes
// each failure that is a wait with the library's adapter (noteWait), which
// sends the library's event of it as Normal (pkg/controller/library).

// stillAttachedError: DeleteVolume waits while a VolumeAttachment names the
// PV; the volume is detached once its pod is gone. Upstream's text.
type stillAttachedError struct{ pv, node string }

func (e *stillAttachedError) Error() string {
	return fmt.Sprintf("persistentvolume %s is still attached to node %s", e.pv, e.node)
}

// callRunningError: a CreateVolume for the claim is running in this process
// (the replay of a claim being deleted); the next attempt comes after it.
type callRunningError struct{ claim string }

func (e *callRunningError) Error() string {
	return fmt.Sprintf("another CreateVolume for claim %s is running", e.claim)
}

// isWait tells whether err, returned by Provision or Delete, is a wait: the
// driver's own answer with a code that leaves the call possibly running
// (Canceled, DeadlineExceeded, Unavailable, Aborted), which the library
// retries with the same request until a final answer, as the CSI spec
// asks; a volume still attached; a CreateVolume of the claim still running.
//
// Only the driver's status as it is counts: an error that wraps one says
// more than the driver (a volume the driver made wrongly and could not
// delete, say), and stays a Warning.
func isWait(err error) bool {
	var attached *stillAttachedError
	var running *callRunningError
	if errors.As(err, &attached) || errors.As(err, &running) {
		return true
	}
	driver, ok := err.(interface{ GRPCStatus() *status.Status })
	if !ok {
		return false
	}
	switch driver.GRPCStatus().Code() {
	case codes.Canceled, codes.DeadlineExceeded, codes.Unavailable, codes.Aborted:
		return true
	}
	return false
}

// noteWait notes a failure of Provision (reason ProvisioningFailed, on the
// claim uid) or Delete (VolumeFailedDelete, on the PV uid) that is a wait,
// for the library's event of it that follows.
func (p *Provisioner) noteWait(ctx context.Context, uid types.UID, reason string, err error) {
	if err == nil || !isWait(err) {
		return
	}
	p.library.NoteWait(uid, reason, err.Error())
	klog.FromContext(ctx).V(5).Info("The failure is a wait: its event is Normal", "reason", reason, "err", err)
}
