package mockdriver

import (
	"fmt"
	"slices"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

// listAll pages through ListVolumes and fails on a repeated volume.
func listAll(t *testing.T, td *testDriver, maxEntries int32) (ids []string, pages int) {
	t.Helper()
	token := ""
	for {
		resp, err := td.controller.ListVolumes(callCtx(t), &csi.ListVolumesRequest{MaxEntries: maxEntries, StartingToken: token})
		if err != nil {
			t.Fatalf("ListVolumes(token %q): %v", token, err)
		}
		pages++
		if maxEntries > 0 && len(resp.GetEntries()) > int(maxEntries) {
			t.Fatalf("page has %d entries, max %d", len(resp.GetEntries()), maxEntries)
		}
		for _, e := range resp.GetEntries() {
			id := e.GetVolume().GetVolumeId()
			if slices.Contains(ids, id) {
				t.Fatalf("volume %s listed twice", id)
			}
			ids = append(ids, id)
		}
		if token = resp.GetNextToken(); token == "" {
			return ids, pages
		}
	}
}

func TestListVolumesPagination(t *testing.T) {
	td := startDriver(t, Config{})
	var created []string
	for i := 0; i < 5; i++ {
		created = append(created, mustCreate(t, td, createReq(fmt.Sprintf("pvc-%d", i), gib)).GetVolumeId())
	}

	for _, tc := range []struct {
		max       int32
		wantPages int
	}{{0, 1}, {1, 5}, {2, 3}, {5, 1}, {10, 1}} {
		t.Run(fmt.Sprintf("max %d", tc.max), func(t *testing.T) {
			ids, pages := listAll(t, td, tc.max)
			if !slices.Equal(ids, created) {
				t.Fatalf("listed %v, want %v in creation order", ids, created)
			}
			if pages != tc.wantPages {
				t.Fatalf("%d pages, want %d", pages, tc.wantPages)
			}
		})
	}
}

func TestListVolumesAcrossChanges(t *testing.T) {
	td := startDriver(t, Config{})
	var created []string
	for i := 0; i < 4; i++ {
		created = append(created, mustCreate(t, td, createReq(fmt.Sprintf("pvc-%d", i), gib)).GetVolumeId())
	}
	first, err := td.controller.ListVolumes(callCtx(t), &csi.ListVolumesRequest{MaxEntries: 2})
	if err != nil {
		t.Fatal(err)
	}

	// Delete the volume the token points at and add a new one: the rest of
	// the list must still come back, without repeats.
	if _, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: created[2]}); err != nil {
		t.Fatal(err)
	}
	added := mustCreate(t, td, createReq("pvc-new", gib)).GetVolumeId()

	rest, err := td.controller.ListVolumes(callCtx(t), &csi.ListVolumesRequest{StartingToken: first.GetNextToken()})
	if err != nil {
		t.Fatalf("ListVolumes with a token whose volume is gone: %v", err)
	}
	var got []string
	for _, e := range rest.GetEntries() {
		got = append(got, e.GetVolume().GetVolumeId())
	}
	if want := []string{created[3], added}; !slices.Equal(got, want) {
		t.Fatalf("second page %v, want %v", got, want)
	}
}

func TestListVolumesRejectsBadInput(t *testing.T) {
	td := startDriver(t, Config{})
	mustCreate(t, td, createReq("pvc-1", gib))
	for _, token := range []string{"invalid-token", "0", "-1", "99999", "1.5"} {
		t.Run(token, func(t *testing.T) {
			_, err := td.controller.ListVolumes(callCtx(t), &csi.ListVolumesRequest{StartingToken: token})
			wantCode(t, err, codes.Aborted)
		})
	}
	_, err := td.controller.ListVolumes(callCtx(t), &csi.ListVolumesRequest{MaxEntries: -1})
	wantCode(t, err, codes.InvalidArgument)
}

func TestListVolumesReportsVolumeDetails(t *testing.T) {
	td := startDriver(t, Config{NodeID: "node-a", Topology: true})
	src := mustCreate(t, td, createReq("source", 2*gib))
	req := createReq("clone", 2*gib)
	req.VolumeContentSource = cloneSource(src.GetVolumeId())
	mustCreate(t, td, req)

	resp, err := td.controller.ListVolumes(callCtx(t), &csi.ListVolumesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetEntries()) != 2 {
		t.Fatalf("%d entries, want 2", len(resp.GetEntries()))
	}
	clone := resp.GetEntries()[1].GetVolume()
	if clone.GetCapacityBytes() != 2*gib ||
		clone.GetContentSource().GetVolume().GetVolumeId() != src.GetVolumeId() ||
		clone.GetAccessibleTopology()[0].GetSegments()[TopologyKey] != "node-a" {
		t.Fatalf("listed clone %v", clone)
	}
}
