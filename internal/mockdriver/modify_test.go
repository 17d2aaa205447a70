package mockdriver

import (
	"maps"
	"slices"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

func reportsModifyVolume(t *testing.T, td *testDriver) bool {
	t.Helper()
	resp, err := td.controller.ControllerGetCapabilities(callCtx(t), &csi.ControllerGetCapabilitiesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(resp.GetCapabilities(), func(c *csi.ControllerServiceCapability) bool {
		return c.GetRpc().GetType() == csi.ControllerServiceCapability_RPC_MODIFY_VOLUME
	})
}

func TestCreateVolumeRecordsMutableParameters(t *testing.T) {
	td := startDriver(t, Config{})
	if !reportsModifyVolume(t, td) {
		t.Fatal("MODIFY_VOLUME is not reported by default")
	}
	req := createReq("pvc-1", gib)
	req.MutableParameters = map[string]string{"iops": "3000"}
	vol := mustCreate(t, td, req)
	if got := td.Volumes()[0].MutableParameters; !maps.Equal(got, req.MutableParameters) {
		t.Fatalf("recorded mutable parameters %v, want %v", got, req.MutableParameters)
	}

	// ControllerModifyVolume replaces them, and a retried CreateVolume
	// still finds the volume: mutable parameters are not its identity.
	if _, err := td.controller.ControllerModifyVolume(callCtx(t), &csi.ControllerModifyVolumeRequest{
		VolumeId: vol.VolumeId, MutableParameters: map[string]string{"iops": "6000"},
	}); err != nil {
		t.Fatal(err)
	}
	if got := td.Volumes()[0].MutableParameters["iops"]; got != "6000" {
		t.Fatalf("iops after modify = %q, want 6000", got)
	}
	if again := mustCreate(t, td, req); again.VolumeId != vol.VolumeId {
		t.Fatalf("retry created %s, want %s", again.VolumeId, vol.VolumeId)
	}
}

func TestUnknownMutableParametersAreInvalid(t *testing.T) {
	td := startDriver(t, Config{})
	req := createReq("pvc-1", gib)
	req.MutableParameters = map[string]string{"colour": "blue"}
	_, err := td.controller.CreateVolume(callCtx(t), req)
	wantCode(t, err, codes.InvalidArgument)
}

func TestModifyVolumeOfAnUnknownVolumeIsNotFound(t *testing.T) {
	td := startDriver(t, Config{})
	_, err := td.controller.ControllerModifyVolume(callCtx(t), &csi.ControllerModifyVolumeRequest{VolumeId: "nope"})
	wantCode(t, err, codes.NotFound)
}

func TestWithoutModifyVolumeMutableParametersAreRefused(t *testing.T) {
	td := startDriver(t, Config{DisableModifyVolume: true})
	if reportsModifyVolume(t, td) {
		t.Fatal("MODIFY_VOLUME reported while disabled")
	}
	req := createReq("pvc-1", gib)
	req.MutableParameters = map[string]string{"iops": "3000"}
	_, err := td.controller.CreateVolume(callCtx(t), req)
	wantCode(t, err, codes.InvalidArgument)
	vol := mustCreate(t, td, createReq("pvc-2", gib))
	_, err = td.controller.ControllerModifyVolume(callCtx(t), &csi.ControllerModifyVolumeRequest{VolumeId: vol.VolumeId})
	wantCode(t, err, codes.Unimplemented)
}
