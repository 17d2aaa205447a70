package mockdriver

import (
	"slices"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
)

// snapshotPage lists the ids of one page of the snapshots filter narrows
// the list to.
func snapshotPage(t *testing.T, td *testDriver, filter *csi.ListSnapshotsRequest, token string, maxEntries int32) ([]string, string, error) {
	resp, err := td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{
		MaxEntries:     maxEntries,
		StartingToken:  token,
		SnapshotId:     filter.GetSnapshotId(),
		SourceVolumeId: filter.GetSourceVolumeId(),
	})
	var ids []string
	for _, e := range resp.GetEntries() {
		ids = append(ids, e.GetSnapshot().GetSnapshotId())
	}
	return ids, resp.GetNextToken(), err
}

func TestListSnapshotsFilters(t *testing.T) {
	td := startDriver(t, Config{})
	a := mustCreate(t, td, createReq("pvc-a", gib)).GetVolumeId()
	b := mustCreate(t, td, createReq("pvc-b", 2*gib)).GetVolumeId()
	a1 := mustSnapshot(t, td, "a-1", a).GetSnapshotId()
	b1 := mustSnapshot(t, td, "b-1", b).GetSnapshotId()
	a2 := mustSnapshot(t, td, "a-2", a).GetSnapshotId()

	cases := []struct {
		name   string
		filter *csi.ListSnapshotsRequest
		want   []string
	}{
		{"by source volume", &csi.ListSnapshotsRequest{SourceVolumeId: a}, []string{a1, a2}},
		{"by snapshot id", &csi.ListSnapshotsRequest{SnapshotId: b1}, []string{b1}},
		{"by both, matching", &csi.ListSnapshotsRequest{SnapshotId: a2, SourceVolumeId: a}, []string{a2}},
		{"by both, not matching", &csi.ListSnapshotsRequest{SnapshotId: b1, SourceVolumeId: a}, nil},
		{"unknown snapshot id", &csi.ListSnapshotsRequest{SnapshotId: "snap-0000000000000000"}, nil},
		{"unknown source volume", &csi.ListSnapshotsRequest{SourceVolumeId: "mock-0000000000000000"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Paging one at a time shows that tokens respect the filter.
			ids, _ := pageThrough(t, 1, func(token string) ([]string, string, error) {
				return snapshotPage(t, td, tc.filter, token, 1)
			})
			if !slices.Equal(ids, tc.want) {
				t.Fatalf("listed %v, want %v", ids, tc.want)
			}
		})
	}

	resp, err := td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{SnapshotId: b1})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.GetEntries()[0].GetSnapshot()
	if got.GetSourceVolumeId() != b || got.GetSizeBytes() != 2*gib || !got.GetReadyToUse() || got.GetCreationTime() == nil {
		t.Fatalf("listed snapshot %v", got)
	}
}
