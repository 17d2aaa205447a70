package mockdriver

import (
	"fmt"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// validateCapability checks one volume capability. Every defined access
// mode is supported since no real device imposes limits.
func validateCapability(c *csi.VolumeCapability) error {
	if c == nil {
		return status.Error(codes.InvalidArgument, "volume capability is missing")
	}
	mode := c.GetAccessMode().GetMode()
	if mode == csi.VolumeCapability_AccessMode_UNKNOWN {
		return status.Error(codes.InvalidArgument, "volume capability has no access mode")
	}
	if _, known := csi.VolumeCapability_AccessMode_Mode_name[int32(mode)]; !known {
		return status.Errorf(codes.InvalidArgument, "unknown access mode %d", int32(mode))
	}
	if accessType(c) == "" {
		return status.Error(codes.InvalidArgument, "volume capability has neither block nor mount access type")
	}
	return nil
}

// accessType is AccessTypeBlock, AccessTypeMount, or "" when unset.
func accessType(c *csi.VolumeCapability) string {
	switch {
	case c.GetBlock() != nil:
		return AccessTypeBlock
	case c.GetMount() != nil:
		return AccessTypeMount
	}
	return ""
}

// capabilitiesAccessType validates caps and returns their common access
// type. A volume is either a block device or a file system, so a request
// mixing both is rejected.
func capabilitiesAccessType(caps []*csi.VolumeCapability) (string, error) {
	if len(caps) == 0 {
		return "", status.Error(codes.InvalidArgument, "volume capabilities are missing")
	}
	common := ""
	for _, c := range caps {
		if err := validateCapability(c); err != nil {
			return "", err
		}
		t := accessType(c)
		if common != "" && t != common {
			return "", status.Error(codes.InvalidArgument, "volume capabilities mix block and mount access types")
		}
		common = t
	}
	return common, nil
}

// accessModes names the access mode of each capability, in order.
func accessModes(caps []*csi.VolumeCapability) []string {
	modes := make([]string, len(caps))
	for i, c := range caps {
		modes[i] = c.GetAccessMode().GetMode().String()
	}
	return modes
}

// requestedSize picks the size for a capacity range: the required size, or
// the default when none is required, never above the limit.
func requestedSize(r *csi.CapacityRange) (int64, error) {
	required, limit := r.GetRequiredBytes(), r.GetLimitBytes()
	if required < 0 || limit < 0 {
		return 0, status.Error(codes.InvalidArgument, "capacity range must not be negative")
	}
	if limit > 0 && required > limit {
		return 0, status.Errorf(codes.InvalidArgument, "required bytes %d exceed limit bytes %d", required, limit)
	}
	size := required
	if size == 0 {
		size = defaultVolumeSize
	}
	if limit > 0 && size > limit {
		size = limit
	}
	return size, nil
}

// fitsRange reports whether an existing size satisfies a capacity range.
func fitsRange(size int64, r *csi.CapacityRange) bool {
	if size < r.GetRequiredBytes() {
		return false
	}
	return r.GetLimitBytes() == 0 || size <= r.GetLimitBytes()
}

// contentSource is what a CreateVolume request fills its volume from: the
// volume it clones or the snapshot it restores, both empty for none.
type contentSource struct {
	volumeID, snapshotID string
}

// sourceOf reads a request's content source. A snapshot source of a driver
// without snapshots is InvalidArgument, as the spec answers an unsupported
// source.
func (d *Driver) sourceOf(src *csi.VolumeContentSource) (contentSource, error) {
	if src == nil {
		return contentSource{}, nil
	}
	switch t := src.GetType().(type) {
	case *csi.VolumeContentSource_Volume:
		id := t.Volume.GetVolumeId()
		if id == "" {
			return contentSource{}, status.Error(codes.InvalidArgument, "volume content source has no volume id")
		}
		return contentSource{volumeID: id}, nil
	case *csi.VolumeContentSource_Snapshot:
		if !d.snapshots {
			return contentSource{}, status.Error(codes.InvalidArgument, "volume content source: snapshots are not supported")
		}
		id := t.Snapshot.GetSnapshotId()
		if id == "" {
			return contentSource{}, status.Error(codes.InvalidArgument, "snapshot content source has no snapshot id")
		}
		return contentSource{snapshotID: id}, nil
	default:
		return contentSource{}, status.Error(codes.InvalidArgument, fmt.Sprintf("unsupported volume content source %T", t))
	}
}
