package mockdriver

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
)

// nodeServer records publications instead of mounting anything. It only
// creates and removes the target path itself, because the spec makes that
// the plugin's job and COs check for it.
type nodeServer struct {
	csi.UnimplementedNodeServer
	d *Driver
}

func (s *nodeServer) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	resp := &csi.NodeGetInfoResponse{NodeId: s.d.nodeID}
	if s.d.topology {
		resp.AccessibleTopology = &csi.Topology{Segments: s.d.nodeTopology()}
	}
	return resp, nil
}

func (s *nodeServer) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	return &csi.NodeGetCapabilitiesResponse{Capabilities: []*csi.NodeServiceCapability{{
		Type: &csi.NodeServiceCapability_Rpc{Rpc: &csi.NodeServiceCapability_RPC{
			Type: csi.NodeServiceCapability_RPC_SINGLE_NODE_MULTI_WRITER,
		}},
	}}}, nil
}

func (s *nodeServer) NodePublishVolume(ctx context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	id, target := req.GetVolumeId(), req.GetTargetPath()
	if id == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id is missing")
	}
	if target == "" {
		return nil, status.Error(codes.InvalidArgument, "target path is missing")
	}
	capability := req.GetVolumeCapability()
	if err := validateCapability(capability); err != nil {
		return nil, err
	}
	pub := Publication{
		VolumeID:   id,
		TargetPath: target,
		AccessType: accessType(capability),
		AccessMode: capability.GetAccessMode().GetMode().String(),
		Readonly:   req.GetReadonly(),
		SecretKeys: sortedKeys(req.GetSecrets()),
	}

	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()

	vol := d.state.volumeByID(id)
	if vol == nil {
		return nil, status.Errorf(codes.NotFound, "volume %s does not exist", id)
	}
	if vol.AccessType != pub.AccessType {
		return nil, status.Errorf(codes.FailedPrecondition, "volume %s has access type %s, not %s", id, vol.AccessType, pub.AccessType)
	}
	for _, other := range d.state.publicationsOf(id) {
		if other.TargetPath == target {
			if other.AccessMode != pub.AccessMode || other.Readonly != pub.Readonly || other.AccessType != pub.AccessType {
				return nil, status.Errorf(codes.AlreadyExists, "volume %s is already published at %s with different options", id, target)
			}
			// Repeated call: make sure the path is still there.
			if err := createTarget(target, pub.AccessType); err != nil {
				return nil, err
			}
			return &csi.NodePublishVolumeResponse{}, nil
		}
		if isSingleWriter(other.AccessMode) || isSingleWriter(pub.AccessMode) {
			return nil, status.Errorf(codes.FailedPrecondition, "volume %s is single-writer and already published at %s", id, other.TargetPath)
		}
	}

	if err := createTarget(target, pub.AccessType); err != nil {
		return nil, err
	}
	if err := d.mutateLocked(func(st *state) { st.Publications = append(st.Publications, pub) }); err != nil {
		_ = os.Remove(target)
		return nil, err
	}
	klog.FromContext(ctx).V(2).Info("Published volume", "volumeID", id, "targetPath", target, "readonly", pub.Readonly)
	return &csi.NodePublishVolumeResponse{}, nil
}

func (s *nodeServer) NodeUnpublishVolume(ctx context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	id, target := req.GetVolumeId(), req.GetTargetPath()
	if id == "" {
		return nil, status.Error(codes.InvalidArgument, "volume id is missing")
	}
	if target == "" {
		return nil, status.Error(codes.InvalidArgument, "target path is missing")
	}

	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()

	published := false
	for _, p := range d.state.publicationsOf(id) {
		published = published || p.TargetPath == target
	}
	if !published {
		if d.state.volumeByID(id) == nil {
			return nil, status.Errorf(codes.NotFound, "volume %s does not exist", id)
		}
		// Unpublishing is idempotent. Paths the driver did not record are
		// left alone: it only removes what it created.
		return &csi.NodeUnpublishVolumeResponse{}, nil
	}
	if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, status.Errorf(codes.Internal, "removing target path: %v", err)
	}
	if err := d.mutateLocked(func(st *state) { st.removePublication(id, target) }); err != nil {
		return nil, err
	}
	klog.FromContext(ctx).V(2).Info("Unpublished volume", "volumeID", id, "targetPath", target)
	return &csi.NodeUnpublishVolumeResponse{}, nil
}

// isSingleWriter reports access modes that allow one publication only.
func isSingleWriter(mode string) bool {
	return mode == csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER.String()
}

// createTarget creates the target path: a directory for a file system, a
// file standing in for the device node of a block volume.
func createTarget(target, access string) error {
	var err error
	if access == AccessTypeBlock {
		if err = os.MkdirAll(filepath.Dir(target), 0o750); err == nil {
			var f *os.File
			if f, err = os.OpenFile(target, os.O_CREATE|os.O_RDONLY, 0o640); err == nil {
				err = f.Close()
			}
		}
	} else {
		err = os.MkdirAll(target, 0o750)
	}
	if err != nil {
		return status.Errorf(codes.Internal, "creating target path: %v", err)
	}
	return nil
}
