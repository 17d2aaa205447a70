package mockdriver

import (
	"context"
	"strconv"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ListVolumes pages by creation sequence number: a token is the sequence
// number of the first volume of the next page. Volumes created meanwhile
// get higher numbers and deleted ones simply disappear, so paging never
// returns a volume twice.
func (s *controllerServer) ListVolumes(ctx context.Context, req *csi.ListVolumesRequest) (*csi.ListVolumesResponse, error) {
	if req.GetMaxEntries() < 0 {
		return nil, status.Error(codes.InvalidArgument, "max_entries must not be negative")
	}

	s.d.mu.Lock()
	defer s.d.mu.Unlock()

	start, err := s.d.state.startingSeq(req.GetStartingToken())
	if err != nil {
		return nil, err
	}

	var entries []*csi.ListVolumesResponse_Entry
	next := ""
	for _, v := range s.d.state.Volumes {
		if v.Seq < start {
			continue
		}
		if limit := int(req.GetMaxEntries()); limit > 0 && len(entries) == limit {
			next = strconv.FormatUint(v.Seq, 10)
			break
		}
		entries = append(entries, &csi.ListVolumesResponse_Entry{Volume: toCSIVolume(v)})
	}
	return &csi.ListVolumesResponse{Entries: entries, NextToken: next}, nil
}

// startingSeq turns a list call's starting token into the sequence number
// to start from; "" starts at the beginning. Only tokens this driver could
// have issued are accepted, anything else is Aborted as the spec asks.
func (s *state) startingSeq(token string) (uint64, error) {
	if token == "" {
		return 0, nil
	}
	seq, err := strconv.ParseUint(token, 10, 64)
	if err != nil || seq == 0 || seq > s.NextSeq {
		return 0, status.Errorf(codes.Aborted, "invalid starting token %q", token)
	}
	return seq, nil
}
