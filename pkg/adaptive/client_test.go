package adaptive

import (
	"context"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
)

type throttlingDriver struct {
	csi.ControllerClient
	err error
}

func (d throttlingDriver) CreateVolume(context.Context, *csi.CreateVolumeRequest, ...grpc.CallOption) (*csi.CreateVolumeResponse, error) {
	return nil, d.err
}

func (d throttlingDriver) DeleteVolume(context.Context, *csi.DeleteVolumeRequest, ...grpc.CallOption) (*csi.DeleteVolumeResponse, error) {
	return nil, d.err
}

func TestTheClientBoundsCreateAndDeleteVolumeByTheBackendsAnswers(t *testing.T) {
	l, _ := newLimiter(8)
	c := Client{ControllerClient: throttlingDriver{err: throttled}, Limiter: l}
	if _, err := c.CreateVolume(context.Background(), &csi.CreateVolumeRequest{}); err != throttled {
		t.Fatalf("CreateVolume = %v, want the driver's answer", err)
	}
	if got := l.Limit(); got != 4 {
		t.Fatalf("bound %d after a refused CreateVolume, want 4", got)
	}
	if _, err := c.DeleteVolume(context.Background(), &csi.DeleteVolumeRequest{}); err != throttled {
		t.Fatalf("DeleteVolume = %v", err)
	}
	if got := l.Limit(); got != 2 {
		t.Fatalf("bound %d after a refused DeleteVolume, want 2", got)
	}
}
