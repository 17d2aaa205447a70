package mockdriver

import (
	"context"
	"strconv"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ListVolumes pages by creation sequence number (see page).
func (s *controllerServer) ListVolumes(ctx context.Context, req *csi.ListVolumesRequest) (*csi.ListVolumesResponse, error) {
	s.d.mu.Lock()
	defer s.d.mu.Unlock()

	vols, next, err := page(s.d.state, s.d.state.Volumes, func(v Volume) uint64 { return v.Seq }, req, nil)
	if err != nil {
		return nil, err
	}
	entries := make([]*csi.ListVolumesResponse_Entry, len(vols))
	for i, v := range vols {
		entries[i] = &csi.ListVolumesResponse_Entry{Volume: toCSIVolume(v)}
	}
	return &csi.ListVolumesResponse{Entries: entries, NextToken: next}, nil
}

// listRequest is what ListVolumes and ListSnapshots requests share.
type listRequest interface {
	GetMaxEntries() int32
	GetStartingToken() string
}

// page returns a list call's page of items, kept in sequence number order:
// those from the starting token on that keep accepts (nil keeps all), at
// most max_entries (0: no limit), and the token of the next page, "" after
// the last. A token is the sequence number of the first item of the next
// page: items made meanwhile get higher numbers and deleted ones simply
// disappear, so paging never returns an item twice.
func page[T any](s *state, items []T, seq func(T) uint64, req listRequest, keep func(T) bool) ([]T, string, error) {
	if req.GetMaxEntries() < 0 {
		return nil, "", status.Error(codes.InvalidArgument, "max_entries must not be negative")
	}
	start, err := s.startingSeq(req.GetStartingToken())
	if err != nil {
		return nil, "", err
	}
	var out []T
	for _, item := range items {
		if seq(item) < start || (keep != nil && !keep(item)) {
			continue
		}
		if limit := int(req.GetMaxEntries()); limit > 0 && len(out) == limit {
			return out, strconv.FormatUint(seq(item), 10), nil
		}
		out = append(out, item)
	}
	return out, "", nil
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
