package mockdriver

import (
	"context"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ListSnapshots pages as ListVolumes does (see page). A snapshot id or
// source volume id narrows the list; an unknown one gives an empty list,
// not an error, as the spec asks.
func (s *controllerServer) ListSnapshots(ctx context.Context, req *csi.ListSnapshotsRequest) (*csi.ListSnapshotsResponse, error) {
	if !s.d.snapshots {
		return nil, status.Error(codes.Unimplemented, "snapshots are disabled")
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()

	matches := func(sn Snapshot) bool {
		return (req.GetSnapshotId() == "" || sn.ID == req.GetSnapshotId()) &&
			(req.GetSourceVolumeId() == "" || sn.SourceVolumeID == req.GetSourceVolumeId())
	}
	snaps, next, err := page(s.d.state, s.d.state.Snapshots, func(sn Snapshot) uint64 { return sn.Seq }, req, matches)
	if err != nil {
		return nil, err
	}
	entries := make([]*csi.ListSnapshotsResponse_Entry, len(snaps))
	for i, sn := range snaps {
		entries[i] = &csi.ListSnapshotsResponse_Entry{Snapshot: toCSISnapshot(sn)}
	}
	return &csi.ListSnapshotsResponse{Entries: entries, NextToken: next}, nil
}
