package controller

import (
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/pkg/controller/topology"
)

// provisioningState maps a CreateVolume error to the lib's provisioning state
// as the CSI spec defines the codes: a final error means the driver created
// nothing; any code that leaves the call possibly running (timeout,
// Unavailable, Aborted, ...) means the volume may still appear, so the lib must
// call again with the same name until it gets a final answer.
//
// ResourceExhausted is the CSI spec's "unable to provision in
// accessible_topology": nothing is in progress. As upstream, it sends the
// claim back to the scheduler when another node might do (mayReschedule: a
// selected node and a driver that takes topology), and is final otherwise.
func provisioningState(err error, mayReschedule bool) controller.ProvisioningState {
	st, ok := status.FromError(err)
	if !ok {
		// Not a gRPC status: the call may have reached the driver.
		return controller.ProvisioningInBackground
	}
	switch st.Code() {
	case codes.ResourceExhausted:
		if mayReschedule {
			// The node cannot host the volume: let the scheduler pick another.
			return controller.ProvisioningReschedule
		}
		return controller.ProvisioningFinished
	case codes.Canceled, codes.DeadlineExceeded, codes.Unavailable, codes.Aborted:
		return controller.ProvisioningInBackground
	default:
		return controller.ProvisioningFinished
	}
}

// isNoCSINode tells the error of a selected node without a CSINode object.
func isNoCSINode(err error) bool {
	var noCSINode *topology.NoCSINodeError
	return errors.As(err, &noCSINode)
}
