package mockdriver

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestCreateVolumeIsIdempotentByName(t *testing.T) {
	td := startDriver(t, Config{})
	req := createReq("pvc-1", 2*gib)
	req.Parameters = map[string]string{"type": "fast"}

	first := mustCreate(t, td, req)
	second := mustCreate(t, td, req)
	if first.GetVolumeId() != second.GetVolumeId() {
		t.Fatalf("retry returned volume %s, first call %s", second.GetVolumeId(), first.GetVolumeId())
	}
	if got := len(td.Volumes()); got != 1 {
		t.Fatalf("driver holds %d volumes, want 1", got)
	}
	if got := td.Calls("CreateVolume"); got != 2 {
		t.Fatalf("Calls(CreateVolume) = %d, want 2", got)
	}

	// A range the existing size still fits is compatible too.
	req.CapacityRange = &csi.CapacityRange{RequiredBytes: gib, LimitBytes: 3 * gib}
	if again := mustCreate(t, td, req); again.GetVolumeId() != first.GetVolumeId() {
		t.Fatalf("compatible range returned a new volume %s", again.GetVolumeId())
	}
}

func TestCreateVolumeIncompatibleRetryIsAlreadyExists(t *testing.T) {
	td := startDriver(t, Config{})
	base := createReq("pvc-1", 2*gib)
	base.Parameters = map[string]string{"type": "fast"}
	src := mustCreate(t, td, createReq("source", gib))
	mustCreate(t, td, base)

	cases := map[string]func(*csi.CreateVolumeRequest){
		"bigger capacity": func(r *csi.CreateVolumeRequest) { r.CapacityRange = &csi.CapacityRange{RequiredBytes: 4 * gib} },
		"smaller limit":   func(r *csi.CreateVolumeRequest) { r.CapacityRange = &csi.CapacityRange{LimitBytes: gib} },
		"parameters":      func(r *csi.CreateVolumeRequest) { r.Parameters = map[string]string{"type": "slow"} },
		"access type": func(r *csi.CreateVolumeRequest) {
			r.VolumeCapabilities = []*csi.VolumeCapability{blockCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)}
		},
		"content source": func(r *csi.CreateVolumeRequest) { r.VolumeContentSource = cloneSource(src.GetVolumeId()) },
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			req := createReq("pvc-1", 2*gib)
			req.Parameters = maps.Clone(base.Parameters)
			change(req)
			_, err := td.controller.CreateVolume(callCtx(t), req)
			wantCode(t, err, codes.AlreadyExists)
		})
	}
}

func TestCreateVolumeValidation(t *testing.T) {
	td := startDriver(t, Config{})
	noMode := &csi.VolumeCapability{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}}}
	noType := &csi.VolumeCapability{AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER}}

	cases := map[string]func(*csi.CreateVolumeRequest){
		"no name":           func(r *csi.CreateVolumeRequest) { r.Name = "" },
		"no capabilities":   func(r *csi.CreateVolumeRequest) { r.VolumeCapabilities = nil },
		"nil capability":    func(r *csi.CreateVolumeRequest) { r.VolumeCapabilities = []*csi.VolumeCapability{nil} },
		"no access mode":    func(r *csi.CreateVolumeRequest) { r.VolumeCapabilities = []*csi.VolumeCapability{noMode} },
		"no access type":    func(r *csi.CreateVolumeRequest) { r.VolumeCapabilities = []*csi.VolumeCapability{noType} },
		"negative required": func(r *csi.CreateVolumeRequest) { r.CapacityRange = &csi.CapacityRange{RequiredBytes: -1} },
		"required over limit": func(r *csi.CreateVolumeRequest) {
			r.CapacityRange = &csi.CapacityRange{RequiredBytes: 2 * gib, LimitBytes: gib}
		},
		"mixed access types": func(r *csi.CreateVolumeRequest) {
			r.VolumeCapabilities = append(r.VolumeCapabilities, blockCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER))
		},
		"clone without id": func(r *csi.CreateVolumeRequest) { r.VolumeContentSource = cloneSource("") },
		// Snapshots are not supported, which the spec answers with InvalidArgument.
		"snapshot source without id": func(r *csi.CreateVolumeRequest) {
			r.VolumeContentSource = &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Snapshot{
				Snapshot: &csi.VolumeContentSource_SnapshotSource{},
			}}
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			req := createReq("pvc-"+strings.ReplaceAll(name, " ", "-"), gib)
			change(req)
			_, err := td.controller.CreateVolume(callCtx(t), req)
			wantCode(t, err, codes.InvalidArgument)
		})
	}
	if got := len(td.Volumes()); got != 0 {
		t.Fatalf("invalid requests created %d volumes", got)
	}
}

func TestCreateVolumeCapacity(t *testing.T) {
	td := startDriver(t, Config{Capacity: 10 * gib, MaxVolumeSize: 4 * gib})
	cases := []struct {
		name      string
		rng       *csi.CapacityRange
		wantBytes int64
		wantCode  codes.Code
	}{
		{name: "no range gets the default", rng: nil, wantBytes: defaultVolumeSize},
		{name: "required", rng: &csi.CapacityRange{RequiredBytes: 2 * gib}, wantBytes: 2 * gib},
		{name: "limit below default", rng: &csi.CapacityRange{LimitBytes: gib / 2}, wantBytes: gib / 2},
		{name: "required and limit", rng: &csi.CapacityRange{RequiredBytes: 3 * gib, LimitBytes: 3 * gib}, wantBytes: 3 * gib},
		{name: "above max volume size", rng: &csi.CapacityRange{RequiredBytes: 5 * gib}, wantCode: codes.OutOfRange},
		// 6.5 GiB are used at this point.
		{name: "above free capacity", rng: &csi.CapacityRange{RequiredBytes: 4 * gib}, wantCode: codes.ResourceExhausted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := createReq("pvc-"+strings.ReplaceAll(tc.name, " ", "-"), 0)
			req.CapacityRange = tc.rng
			resp, err := td.controller.CreateVolume(callCtx(t), req)
			wantCode(t, err, tc.wantCode)
			if err == nil && resp.GetVolume().GetCapacityBytes() != tc.wantBytes {
				t.Fatalf("got %d bytes, want %d", resp.GetVolume().GetCapacityBytes(), tc.wantBytes)
			}
		})
	}

	capResp, err := td.controller.GetCapacity(callCtx(t), &csi.GetCapacityRequest{})
	if err != nil {
		t.Fatalf("GetCapacity: %v", err)
	}
	free := 10*gib - (defaultVolumeSize + 2*gib + gib/2 + 3*gib)
	if capResp.GetAvailableCapacity() != free {
		t.Fatalf("available capacity %d, want %d", capResp.GetAvailableCapacity(), free)
	}
	if got := capResp.GetMaximumVolumeSize().GetValue(); got != min(free, 4*gib) {
		t.Fatalf("maximum volume size %d, want %d", got, min(free, 4*gib))
	}
}

func TestGetCapacityNeedsConfiguredCapacity(t *testing.T) {
	td := startDriver(t, Config{})
	_, err := td.controller.GetCapacity(callCtx(t), &csi.GetCapacityRequest{})
	wantCode(t, err, codes.Unimplemented)
	caps, err := td.controller.ControllerGetCapabilities(callCtx(t), &csi.ControllerGetCapabilitiesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range caps.GetCapabilities() {
		if c.GetRpc().GetType() == csi.ControllerServiceCapability_RPC_GET_CAPACITY {
			t.Fatal("GET_CAPACITY advertised without a capacity")
		}
	}
}

func TestCreateVolumeBlockAndMount(t *testing.T) {
	td := startDriver(t, Config{})
	block := createReq("pvc-block", gib)
	block.VolumeCapabilities = []*csi.VolumeCapability{blockCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)}
	blockVol := mustCreate(t, td, block)
	mountVol := mustCreate(t, td, createReq("pvc-mount", gib))

	got := map[string]string{}
	for _, v := range td.Volumes() {
		got[v.ID] = v.AccessType
	}
	if got[blockVol.GetVolumeId()] != AccessTypeBlock || got[mountVol.GetVolumeId()] != AccessTypeMount {
		t.Fatalf("recorded access types %v", got)
	}

	resp, err := td.controller.ValidateVolumeCapabilities(callCtx(t), &csi.ValidateVolumeCapabilitiesRequest{
		VolumeId:           blockVol.GetVolumeId(),
		VolumeCapabilities: []*csi.VolumeCapability{mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)},
	})
	if err != nil {
		t.Fatalf("ValidateVolumeCapabilities: %v", err)
	}
	if resp.GetConfirmed() != nil || resp.GetMessage() == "" {
		t.Fatalf("mount capability confirmed for a block volume: %v", resp)
	}
}

func TestValidateVolumeCapabilities(t *testing.T) {
	td := startDriver(t, Config{})
	req := createReq("pvc-1", gib)
	req.Parameters = map[string]string{"type": "fast"}
	vol := mustCreate(t, td, req)
	caps := []*csi.VolumeCapability{mountCap(csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER)}

	resp, err := td.controller.ValidateVolumeCapabilities(callCtx(t), &csi.ValidateVolumeCapabilitiesRequest{VolumeId: vol.GetVolumeId(), VolumeCapabilities: caps})
	if err != nil || resp.GetConfirmed() == nil {
		t.Fatalf("supported capability not confirmed: %v, %v", resp, err)
	}
	resp, err = td.controller.ValidateVolumeCapabilities(callCtx(t), &csi.ValidateVolumeCapabilitiesRequest{
		VolumeId: vol.GetVolumeId(), VolumeCapabilities: caps, Parameters: map[string]string{"type": "slow"},
	})
	if err != nil || resp.GetConfirmed() != nil {
		t.Fatalf("different parameters confirmed: %v, %v", resp, err)
	}
	_, err = td.controller.ValidateVolumeCapabilities(callCtx(t), &csi.ValidateVolumeCapabilitiesRequest{VolumeId: "mock-missing", VolumeCapabilities: caps})
	wantCode(t, err, codes.NotFound)
	_, err = td.controller.ValidateVolumeCapabilities(callCtx(t), &csi.ValidateVolumeCapabilitiesRequest{VolumeId: vol.GetVolumeId()})
	wantCode(t, err, codes.InvalidArgument)
	_, err = td.controller.ValidateVolumeCapabilities(callCtx(t), &csi.ValidateVolumeCapabilitiesRequest{VolumeCapabilities: caps})
	wantCode(t, err, codes.InvalidArgument)
}

func TestCreateVolumeClone(t *testing.T) {
	td := startDriver(t, Config{})
	source := mustCreate(t, td, createReq("source", 2*gib))

	req := createReq("clone", gib)
	req.VolumeContentSource = cloneSource(source.GetVolumeId())
	clone := mustCreate(t, td, req)
	if got := clone.GetContentSource().GetVolume().GetVolumeId(); got != source.GetVolumeId() {
		t.Fatalf("response content source %q, want %q", got, source.GetVolumeId())
	}
	if clone.GetCapacityBytes() != 2*gib {
		t.Fatalf("clone has %d bytes, want the source's %d", clone.GetCapacityBytes(), 2*gib)
	}
	for _, v := range td.Volumes() {
		if v.ID == clone.GetVolumeId() && v.SourceVolumeID != source.GetVolumeId() {
			t.Fatalf("stored source %q, want %q", v.SourceVolumeID, source.GetVolumeId())
		}
	}

	t.Run("missing source", func(t *testing.T) {
		req := createReq("clone-of-missing", gib)
		req.VolumeContentSource = cloneSource("mock-0000000000000000")
		_, err := td.controller.CreateVolume(callCtx(t), req)
		wantCode(t, err, codes.NotFound)
	})
	t.Run("source above limit", func(t *testing.T) {
		req := createReq("clone-too-small", 0)
		req.CapacityRange = &csi.CapacityRange{LimitBytes: gib}
		req.VolumeContentSource = cloneSource(source.GetVolumeId())
		_, err := td.controller.CreateVolume(callCtx(t), req)
		wantCode(t, err, codes.OutOfRange)
	})
	t.Run("different access type", func(t *testing.T) {
		req := createReq("clone-block", gib)
		req.VolumeCapabilities = []*csi.VolumeCapability{blockCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)}
		req.VolumeContentSource = cloneSource(source.GetVolumeId())
		_, err := td.controller.CreateVolume(callCtx(t), req)
		wantCode(t, err, codes.InvalidArgument)
	})
	t.Run("retry after the source is gone", func(t *testing.T) {
		if _, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: source.GetVolumeId()}); err != nil {
			t.Fatalf("DeleteVolume: %v", err)
		}
		if again := mustCreate(t, td, req); again.GetVolumeId() != clone.GetVolumeId() {
			t.Fatalf("retry returned %s, want %s", again.GetVolumeId(), clone.GetVolumeId())
		}
	})
}

func TestCreateVolumeTopology(t *testing.T) {
	td := startDriver(t, Config{NodeID: "node-a", Topology: true})
	topo := func(node string) *csi.Topology {
		return &csi.Topology{Segments: map[string]string{TopologyKey: node}}
	}
	cases := []struct {
		name string
		reqs *csi.TopologyRequirement
		want string
	}{
		{name: "no requirements uses the driver node", want: "node-a"},
		{name: "first preferred", reqs: &csi.TopologyRequirement{
			Requisite: []*csi.Topology{topo("node-b"), topo("node-c")},
			Preferred: []*csi.Topology{topo("node-c"), topo("node-b")},
		}, want: "node-c"},
		{name: "first requisite", reqs: &csi.TopologyRequirement{
			Requisite: []*csi.Topology{topo("node-b"), topo("node-c")},
		}, want: "node-b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := createReq("pvc-"+strings.ReplaceAll(tc.name, " ", "-"), gib)
			req.AccessibilityRequirements = tc.reqs
			vol := mustCreate(t, td, req)
			got := vol.GetAccessibleTopology()
			if len(got) != 1 || got[0].GetSegments()[TopologyKey] != tc.want {
				t.Fatalf("accessible topology %v, want %s=%s", got, TopologyKey, tc.want)
			}
		})
	}

	t.Run("retry with a requisite the volume is not in", func(t *testing.T) {
		req := createReq("pvc-first-requisite", gib)
		req.AccessibilityRequirements = &csi.TopologyRequirement{Requisite: []*csi.Topology{topo("node-z")}}
		_, err := td.controller.CreateVolume(callCtx(t), req)
		wantCode(t, err, codes.AlreadyExists)
	})
	t.Run("clone stays with its source", func(t *testing.T) {
		src := mustCreate(t, td, createReq("topo-source", gib))
		req := createReq("topo-clone", gib)
		req.VolumeContentSource = cloneSource(src.GetVolumeId())
		req.AccessibilityRequirements = &csi.TopologyRequirement{Preferred: []*csi.Topology{topo("node-b")}}
		clone := mustCreate(t, td, req)
		if got := clone.GetAccessibleTopology()[0].GetSegments()[TopologyKey]; got != "node-a" {
			t.Fatalf("clone accessible from %s, want the source's node-a", got)
		}
	})

	info, err := td.node.NodeGetInfo(callCtx(t), &csi.NodeGetInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if info.GetNodeId() != "node-a" || info.GetAccessibleTopology().GetSegments()[TopologyKey] != "node-a" {
		t.Fatalf("NodeGetInfo = %v", info)
	}
}

func TestCreateVolumeWithoutTopology(t *testing.T) {
	td := startDriver(t, Config{NodeID: "node-a"})
	req := createReq("pvc-1", gib)
	req.AccessibilityRequirements = &csi.TopologyRequirement{Requisite: []*csi.Topology{{Segments: map[string]string{TopologyKey: "node-b"}}}}
	if vol := mustCreate(t, td, req); len(vol.GetAccessibleTopology()) != 0 {
		t.Fatalf("topology reported while disabled: %v", vol.GetAccessibleTopology())
	}
	info, err := td.node.NodeGetInfo(callCtx(t), &csi.NodeGetInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if info.GetAccessibleTopology() != nil {
		t.Fatalf("NodeGetInfo reports topology while disabled: %v", info)
	}
}

func TestCreateVolumeRecordsSecretKeysOnly(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "state.json")
	td := startDriver(t, Config{StateFile: stateFile})
	req := createReq("pvc-1", gib)
	req.Parameters = map[string]string{"type": "fast"}
	req.Secrets = map[string]string{"username": "admin", "password": "s3cr3t-value"}
	vol := mustCreate(t, td, req)

	stored := td.Volumes()[0]
	if !slices.Equal(stored.SecretKeys, []string{"password", "username"}) {
		t.Fatalf("secret keys %v", stored.SecretKeys)
	}
	if stored.Name != "pvc-1" || stored.ID != vol.GetVolumeId() || stored.CapacityBytes != gib || stored.Parameters["type"] != "fast" {
		t.Fatalf("stored volume %+v", stored)
	}

	_, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{
		VolumeId: vol.GetVolumeId(), Secrets: map[string]string{"token": "another-s3cr3t"},
	})
	if err != nil {
		t.Fatalf("DeleteVolume: %v", err)
	}
	dels := td.Deletions()
	if len(dels) != 1 || dels[0].VolumeID != vol.GetVolumeId() || !slices.Equal(dels[0].SecretKeys, []string{"token"}) {
		t.Fatalf("deletions %+v", dels)
	}

	wantNoSecretValue(t, stateFile)
}

func TestDeleteVolume(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))

	for i := 0; i < 2; i++ {
		if _, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: vol.GetVolumeId()}); err != nil {
			t.Fatalf("DeleteVolume #%d: %v", i+1, err)
		}
	}
	if got := len(td.Volumes()); got != 0 {
		t.Fatalf("%d volumes left", got)
	}
	if got := len(td.Deletions()); got != 1 {
		t.Fatalf("%d deletions recorded, want 1", got)
	}
	if _, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: "never-existed"}); err != nil {
		t.Fatalf("DeleteVolume of an unknown id: %v", err)
	}
	_, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{})
	wantCode(t, err, codes.InvalidArgument)
	if got := td.Calls("DeleteVolume"); got != 4 {
		t.Fatalf("Calls(DeleteVolume) = %d, want 4", got)
	}
}

// A CreateVolume for a name whose creation still runs in the backend, its
// caller gone or not, is Aborted; once that creation ends, the name is
// served again.
func TestConcurrentCreateOfOneNameIsAborted(t *testing.T) {
	td := startDriver(t, Config{Faults: Faults{CreateDelay: time.Second, CreateOutlivesCaller: true}})
	req := createReq("pvc-1", gib)
	ctx, cancel := context.WithTimeout(callCtx(t), 100*time.Millisecond)
	defer cancel()
	if _, err := td.controller.CreateVolume(ctx, req); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("first call: %v, want its caller to give up", err)
	}
	_, err := td.controller.CreateVolume(callCtx(t), req)
	wantCode(t, err, codes.Aborted)
	testutil.Eventually(t, 10*time.Second, "the backend to finish the first creation", func() bool { return len(td.Volumes()) == 1 })
	if vol := mustCreate(t, td, req); vol.VolumeId != td.Volumes()[0].ID {
		t.Fatalf("retry got %s, want the volume the backend made", vol.VolumeId)
	}
}
