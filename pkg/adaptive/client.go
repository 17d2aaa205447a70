package adaptive

import (
	"context"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Client bounds a driver's CreateVolume and DeleteVolume calls with one
// Limiter; every other call passes through.
type Client struct {
	csi.ControllerClient
	Limiter *Limiter
}

// Throttled tells whether err is a backend's refusal for load. CSI also
// answers ResourceExhausted for a backend out of space: fewer calls at
// once do no harm then either.
func Throttled(err error) bool {
	switch status.Code(err) {
	case codes.ResourceExhausted, codes.Unavailable:
		return true
	}
	return false
}

func (c Client) CreateVolume(ctx context.Context, req *csi.CreateVolumeRequest, opts ...grpc.CallOption) (*csi.CreateVolumeResponse, error) {
	t, err := c.Limiter.Acquire(ctx)
	if err != nil {
		return nil, status.FromContextError(err).Err()
	}
	resp, err := c.ControllerClient.CreateVolume(ctx, req, opts...)
	t.Release(err)
	return resp, err
}

func (c Client) DeleteVolume(ctx context.Context, req *csi.DeleteVolumeRequest, opts ...grpc.CallOption) (*csi.DeleteVolumeResponse, error) {
	t, err := c.Limiter.Acquire(ctx)
	if err != nil {
		return nil, status.FromContextError(err).Err()
	}
	resp, err := c.ControllerClient.DeleteVolume(ctx, req, opts...)
	t.Release(err)
	return resp, err
}
