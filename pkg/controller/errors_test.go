package controller

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"
)

func TestProvisioningStateFollowsCSICodes(t *testing.T) {
	cases := []struct {
		name          string
		err           error
		mayReschedule bool
		want          controller.ProvisioningState
	}{
		{"invalid argument is final", status.Error(codes.InvalidArgument, "bad"), false, controller.ProvisioningFinished},
		{"already exists is final", status.Error(codes.AlreadyExists, "dup"), false, controller.ProvisioningFinished},
		{"internal is final", status.Error(codes.Internal, "boom"), false, controller.ProvisioningFinished},
		{"deadline may still run", status.Error(codes.DeadlineExceeded, "slow"), false, controller.ProvisioningInBackground},
		{"unavailable may still run", status.Error(codes.Unavailable, "down"), false, controller.ProvisioningInBackground},
		{"canceled may still run", status.Error(codes.Canceled, "stop"), false, controller.ProvisioningInBackground},
		{"aborted may still run", status.Error(codes.Aborted, "busy"), false, controller.ProvisioningInBackground},
		{"exhausted where no other node may do is final", status.Error(codes.ResourceExhausted, "full"), false, controller.ProvisioningFinished},
		{"exhausted where another node may do reschedules", status.Error(codes.ResourceExhausted, "full"), true, controller.ProvisioningReschedule},
		{"non-gRPC error may still run", errors.New("transport"), false, controller.ProvisioningInBackground},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := provisioningState(tc.err, tc.mayReschedule); got != tc.want {
				t.Fatalf("state = %s, want %s", got, tc.want)
			}
		})
	}
}
