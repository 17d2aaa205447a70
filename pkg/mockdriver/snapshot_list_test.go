package mockdriver

import (
	"fmt"
	"slices"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

// listAllSnapshots pages through ListSnapshots narrowed by filter and fails
// on a repeated snapshot.
func listAllSnapshots(t *testing.T, td *testDriver, filter *csi.ListSnapshotsRequest, maxEntries int32) (ids []string, pages int) {
	t.Helper()
	token := ""
	for {
		resp, err := td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{
			MaxEntries:     maxEntries,
			StartingToken:  token,
			SnapshotId:     filter.GetSnapshotId(),
			SourceVolumeId: filter.GetSourceVolumeId(),
		})
		if err != nil {
			t.Fatalf("ListSnapshots(token %q): %v", token, err)
		}
		pages++
		if maxEntries > 0 && len(resp.GetEntries()) > int(maxEntries) {
			t.Fatalf("page has %d entries, max %d", len(resp.GetEntries()), maxEntries)
		}
		for _, e := range resp.GetEntries() {
			id := e.GetSnapshot().GetSnapshotId()
			if slices.Contains(ids, id) {
				t.Fatalf("snapshot %s listed twice", id)
			}
			ids = append(ids, id)
		}
		if token = resp.GetNextToken(); token == "" {
			return ids, pages
		}
	}
}

func TestListSnapshotsPagination(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	var created []string
	for i := 0; i < 5; i++ {
		created = append(created, mustSnapshot(t, td, fmt.Sprintf("snap-%d", i), vol.GetVolumeId()).GetSnapshotId())
		// Volumes share the sequence; listing must skip them.
		mustCreate(t, td, createReq(fmt.Sprintf("pvc-between-%d", i), gib))
	}

	for _, tc := range []struct {
		max       int32
		wantPages int
	}{{0, 1}, {1, 5}, {2, 3}, {5, 1}, {10, 1}} {
		t.Run(fmt.Sprintf("max %d", tc.max), func(t *testing.T) {
			ids, pages := listAllSnapshots(t, td, nil, tc.max)
			if !slices.Equal(ids, created) {
				t.Fatalf("listed %v, want %v in creation order", ids, created)
			}
			if pages != tc.wantPages {
				t.Fatalf("%d pages, want %d", pages, tc.wantPages)
			}
		})
	}
}

func TestListSnapshotsAcrossChanges(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	var created []string
	for i := 0; i < 4; i++ {
		created = append(created, mustSnapshot(t, td, fmt.Sprintf("snap-%d", i), vol.GetVolumeId()).GetSnapshotId())
	}
	first, err := td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{MaxEntries: 2})
	if err != nil {
		t.Fatal(err)
	}

	// Delete the snapshot the token points at and cut a new one: the rest
	// of the list must still come back, without repeats.
	deleteSnapshot(t, td, created[2])
	added := mustSnapshot(t, td, "snap-new", vol.GetVolumeId()).GetSnapshotId()

	rest, err := td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{StartingToken: first.GetNextToken()})
	if err != nil {
		t.Fatalf("ListSnapshots with a token whose snapshot is gone: %v", err)
	}
	var got []string
	for _, e := range rest.GetEntries() {
		got = append(got, e.GetSnapshot().GetSnapshotId())
	}
	if want := []string{created[3], added}; !slices.Equal(got, want) {
		t.Fatalf("second page %v, want %v", got, want)
	}
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
			if ids, _ := listAllSnapshots(t, td, tc.filter, 1); !slices.Equal(ids, tc.want) {
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

func TestListSnapshotsRejectsBadInput(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	mustSnapshot(t, td, "snap-1", vol.GetVolumeId())
	for _, token := range []string{"invalid-token", "0", "-1", "99999", "1.5"} {
		t.Run(token, func(t *testing.T) {
			_, err := td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{StartingToken: token})
			wantCode(t, err, codes.Aborted)
		})
	}
	_, err := td.controller.ListSnapshots(callCtx(t), &csi.ListSnapshotsRequest{MaxEntries: -1})
	wantCode(t, err, codes.InvalidArgument)
}
