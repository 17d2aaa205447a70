package mockdriver

import (
	"fmt"
	"slices"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

// listed is ListVolumes or ListSnapshots with what the paging tests need
// to make and delete what it lists.
type listed struct {
	kind string
	// add makes an item called name and returns its id.
	add    func(t *testing.T, td *testDriver, name string) string
	remove func(t *testing.T, td *testDriver, id string)
	// page lists the ids of one page.
	page func(t *testing.T, td *testDriver, token string, maxEntries int32) (ids []string, next string, err error)
}

var listings = []listed{{
	kind: "volume",
	add: func(t *testing.T, td *testDriver, name string) string {
		return mustCreate(t, td, createReq(name, gib)).GetVolumeId()
	},
	remove: deleteVolume,
	page: func(t *testing.T, td *testDriver, token string, maxEntries int32) ([]string, string, error) {
		resp, err := td.controller.ListVolumes(callCtx(t), &csi.ListVolumesRequest{MaxEntries: maxEntries, StartingToken: token})
		var ids []string
		for _, e := range resp.GetEntries() {
			ids = append(ids, e.GetVolume().GetVolumeId())
		}
		return ids, resp.GetNextToken(), err
	},
}, {
	kind: "snapshot",
	// Each of a volume of its own: volumes take the sequence numbers
	// between snapshots, which listing must skip.
	add: func(t *testing.T, td *testDriver, name string) string {
		source := mustCreate(t, td, createReq("source-"+name, gib)).GetVolumeId()
		return mustSnapshot(t, td, name, source).GetSnapshotId()
	},
	remove: deleteSnapshot,
	page: func(t *testing.T, td *testDriver, token string, maxEntries int32) ([]string, string, error) {
		return snapshotPage(t, td, nil, token, maxEntries)
	},
}}

// startWith starts a driver holding n items and returns their ids in
// creation order.
func (l listed) startWith(t *testing.T, n int) (*testDriver, []string) {
	t.Helper()
	td := startDriver(t, Config{})
	var created []string
	for i := 0; i < n; i++ {
		created = append(created, l.add(t, td, fmt.Sprintf("item-%d", i)))
	}
	return td, created
}

// all pages through the whole list, maxEntries a page.
func (l listed) all(t *testing.T, td *testDriver, maxEntries int32) (ids []string, pages int) {
	t.Helper()
	return pageThrough(t, maxEntries, func(token string) ([]string, string, error) {
		return l.page(t, td, token, maxEntries)
	})
}

// pageThrough lists page after page, following the next tokens, and fails
// on a page longer than maxEntries or an id listed twice.
func pageThrough(t *testing.T, maxEntries int32, page func(token string) ([]string, string, error)) (ids []string, pages int) {
	t.Helper()
	token := ""
	for {
		got, next, err := page(token)
		if err != nil {
			t.Fatalf("listing from token %q: %v", token, err)
		}
		pages++
		if maxEntries > 0 && len(got) > int(maxEntries) {
			t.Fatalf("page has %d entries, max %d", len(got), maxEntries)
		}
		for _, id := range got {
			if slices.Contains(ids, id) {
				t.Fatalf("%s listed twice", id)
			}
			ids = append(ids, id)
		}
		if token = next; token == "" {
			return ids, pages
		}
	}
}

func TestListPagination(t *testing.T) {
	for _, l := range listings {
		t.Run(l.kind, func(t *testing.T) {
			td, created := l.startWith(t, 5)
			for _, tc := range []struct {
				max       int32
				wantPages int
			}{{0, 1}, {1, 5}, {2, 3}, {5, 1}, {10, 1}} {
				t.Run(fmt.Sprintf("max %d", tc.max), func(t *testing.T) {
					ids, pages := l.all(t, td, tc.max)
					if !slices.Equal(ids, created) {
						t.Fatalf("listed %v, want %v in creation order", ids, created)
					}
					if pages != tc.wantPages {
						t.Fatalf("%d pages, want %d", pages, tc.wantPages)
					}
				})
			}
		})
	}
}

func TestListAcrossChanges(t *testing.T) {
	for _, l := range listings {
		t.Run(l.kind, func(t *testing.T) {
			td, created := l.startWith(t, 4)
			_, next, err := l.page(t, td, "", 2)
			if err != nil {
				t.Fatal(err)
			}

			// Delete the item the token points at and add a new one: the
			// rest of the list must still come back, without repeats.
			l.remove(t, td, created[2])
			added := l.add(t, td, "item-new")

			rest, _, err := l.page(t, td, next, 0)
			if err != nil {
				t.Fatalf("listing from a token whose %s is gone: %v", l.kind, err)
			}
			if want := []string{created[3], added}; !slices.Equal(rest, want) {
				t.Fatalf("second page %v, want %v", rest, want)
			}
		})
	}
}

func TestListRejectsBadInput(t *testing.T) {
	for _, l := range listings {
		t.Run(l.kind, func(t *testing.T) {
			td, _ := l.startWith(t, 1)
			for _, token := range []string{"invalid-token", "0", "-1", "99999", "1.5"} {
				t.Run(token, func(t *testing.T) {
					_, _, err := l.page(t, td, token, 0)
					wantCode(t, err, codes.Aborted)
				})
			}
			_, _, err := l.page(t, td, "", -1)
			wantCode(t, err, codes.InvalidArgument)
		})
	}
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
