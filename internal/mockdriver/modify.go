package mockdriver

import (
	"context"
	"maps"
	"slices"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
)

// MutableParameterKeys are the mutable parameters the driver understands,
// like a cloud disk's performance settings; any other key is
// InvalidArgument, as the CSI spec asks.
var MutableParameterKeys = []string{"iops", "throughput"}

func (d *Driver) checkMutableParameters(params map[string]string) error {
	if len(params) > 0 && !d.modifyVolume {
		return status.Error(codes.InvalidArgument, "mutable parameters are not supported")
	}
	for key := range params {
		if !slices.Contains(MutableParameterKeys, key) {
			return status.Errorf(codes.InvalidArgument, "unknown mutable parameter %q; known: %v", key, MutableParameterKeys)
		}
	}
	return nil
}

// ControllerModifyVolume replaces a volume's mutable parameters, as the
// external-resizer asks when a claim's VolumeAttributesClass changes.
func (s *controllerServer) ControllerModifyVolume(ctx context.Context, req *csi.ControllerModifyVolumeRequest) (*csi.ControllerModifyVolumeResponse, error) {
	d := s.d
	if !d.modifyVolume {
		return nil, status.Error(codes.Unimplemented, "MODIFY_VOLUME is not supported")
	}
	id := req.GetVolumeId()
	if id == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id is missing")
	}
	if err := d.checkMutableParameters(req.GetMutableParameters()); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state.volumeByID(id) == nil {
		return nil, status.Errorf(codes.NotFound, "volume %s does not exist", id)
	}
	params := maps.Clone(req.GetMutableParameters())
	if err := d.mutateLocked(func(s *state) { s.volumeByID(id).MutableParameters = params }); err != nil {
		return nil, err
	}
	klog.FromContext(ctx).V(2).Info("Modified volume", "volumeID", id, "mutableParameters", params)
	return &csi.ControllerModifyVolumeResponse{}, nil
}
