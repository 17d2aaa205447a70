package mockdriver

import (
	"context"
	"strconv"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ListSnapshots pages by sequence number as ListVolumes does, so snapshots
// cut or deleted while a client pages never show up twice. A snapshot id
// or source volume id narrows the list; an unknown one gives an empty list,
// not an error, as the spec asks.
func (s *controllerServer) ListSnapshots(ctx context.Context, req *csi.ListSnapshotsRequest) (*csi.ListSnapshotsResponse, error) {
	if !s.d.snapshots {
		return nil, status.Error(codes.Unimplemented, "snapshots are disabled")
	}
	if req.GetMaxEntries() < 0 {
		return nil, status.Error(codes.InvalidArgument, "max_entries must not be negative")
	}

	s.d.mu.Lock()
	defer s.d.mu.Unlock()

	start, err := s.d.state.startingSeq(req.GetStartingToken())
	if err != nil {
		return nil, err
	}
	var entries []*csi.ListSnapshotsResponse_Entry
	next := ""
	for _, sn := range s.d.state.Snapshots {
		switch {
		case sn.Seq < start:
			continue
		case req.GetSnapshotId() != "" && sn.ID != req.GetSnapshotId():
			continue
		case req.GetSourceVolumeId() != "" && sn.SourceVolumeID != req.GetSourceVolumeId():
			continue
		}
		if limit := int(req.GetMaxEntries()); limit > 0 && len(entries) == limit {
			next = strconv.FormatUint(sn.Seq, 10)
			break
		}
		entries = append(entries, &csi.ListSnapshotsResponse_Entry{Snapshot: toCSISnapshot(sn)})
	}
	return &csi.ListSnapshotsResponse{Entries: entries, NextToken: next}, nil
}
