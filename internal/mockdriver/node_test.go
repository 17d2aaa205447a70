package mockdriver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
)

func publishReq(volumeID, target string, c *csi.VolumeCapability) *csi.NodePublishVolumeRequest {
	return &csi.NodePublishVolumeRequest{VolumeId: volumeID, TargetPath: target, VolumeCapability: c}
}

func TestNodePublishAndUnpublish(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	target := filepath.Join(t.TempDir(), "pods", "uid", "mount")
	req := publishReq(vol.GetVolumeId(), target, mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER))
	req.Secrets = map[string]string{"node-key": "value"}

	for i := 0; i < 2; i++ {
		if _, err := td.node.NodePublishVolume(callCtx(t), req); err != nil {
			t.Fatalf("NodePublishVolume #%d: %v", i+1, err)
		}
	}
	if info, err := os.Stat(target); err != nil || !info.IsDir() {
		t.Fatalf("target path not created as a directory: %v", err)
	}
	pubs := td.Publications()
	if len(pubs) != 1 || pubs[0].TargetPath != target || pubs[0].AccessMode != "SINGLE_NODE_WRITER" || pubs[0].SecretKeys[0] != "node-key" {
		t.Fatalf("publications %+v", pubs)
	}

	_, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: vol.GetVolumeId()})
	wantCode(t, err, codes.FailedPrecondition)

	readonly := publishReq(vol.GetVolumeId(), target, mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER))
	readonly.Readonly = true
	_, err = td.node.NodePublishVolume(callCtx(t), readonly)
	wantCode(t, err, codes.AlreadyExists)

	unpub := &csi.NodeUnpublishVolumeRequest{VolumeId: vol.GetVolumeId(), TargetPath: target}
	for i := 0; i < 2; i++ {
		if _, err := td.node.NodeUnpublishVolume(callCtx(t), unpub); err != nil {
			t.Fatalf("NodeUnpublishVolume #%d: %v", i+1, err)
		}
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("target path still there after unpublish: %v", err)
	}
	if got := len(td.Publications()); got != 0 {
		t.Fatalf("%d publications left", got)
	}
	if _, err := td.controller.DeleteVolume(callCtx(t), &csi.DeleteVolumeRequest{VolumeId: vol.GetVolumeId()}); err != nil {
		t.Fatalf("DeleteVolume after unpublish: %v", err)
	}
}

func TestNodePublishBlockCreatesFile(t *testing.T) {
	td := startDriver(t, Config{})
	req := createReq("pvc-block", gib)
	req.VolumeCapabilities = []*csi.VolumeCapability{blockCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)}
	vol := mustCreate(t, td, req)
	target := filepath.Join(t.TempDir(), "dev", "pvc-block")

	_, err := td.node.NodePublishVolume(callCtx(t), publishReq(vol.GetVolumeId(), target, mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)))
	wantCode(t, err, codes.FailedPrecondition)

	if _, err := td.node.NodePublishVolume(callCtx(t), publishReq(vol.GetVolumeId(), target, blockCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER))); err != nil {
		t.Fatalf("NodePublishVolume: %v", err)
	}
	if info, err := os.Stat(target); err != nil || !info.Mode().IsRegular() {
		t.Fatalf("block target not created as a file: %v", err)
	}
}

func TestNodePublishSingleWriter(t *testing.T) {
	td := startDriver(t, Config{})
	snsw := mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER)
	req := createReq("pvc-1", gib)
	req.VolumeCapabilities = []*csi.VolumeCapability{snsw}
	vol := mustCreate(t, td, req)
	dir := t.TempDir()

	if _, err := td.node.NodePublishVolume(callCtx(t), publishReq(vol.GetVolumeId(), filepath.Join(dir, "a"), snsw)); err != nil {
		t.Fatal(err)
	}
	_, err := td.node.NodePublishVolume(callCtx(t), publishReq(vol.GetVolumeId(), filepath.Join(dir, "b"), snsw))
	wantCode(t, err, codes.FailedPrecondition)

	// Multi-writer volumes may be published at several paths.
	multi := mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_MULTI_WRITER)
	other := mustCreate(t, td, createReq("pvc-2", gib))
	for _, p := range []string{"c", "d"} {
		if _, err := td.node.NodePublishVolume(callCtx(t), publishReq(other.GetVolumeId(), filepath.Join(dir, p), multi)); err != nil {
			t.Fatalf("publishing at %s: %v", p, err)
		}
	}
}

func TestNodePublishValidation(t *testing.T) {
	td := startDriver(t, Config{})
	vol := mustCreate(t, td, createReq("pvc-1", gib))
	target := filepath.Join(t.TempDir(), "target")
	c := mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)

	for name, tc := range map[string]struct {
		req  *csi.NodePublishVolumeRequest
		want codes.Code
	}{
		"no volume id":   {publishReq("", target, c), codes.InvalidArgument},
		"no target":      {publishReq(vol.GetVolumeId(), "", c), codes.InvalidArgument},
		"no capability":  {publishReq(vol.GetVolumeId(), target, nil), codes.InvalidArgument},
		"unknown volume": {publishReq("mock-missing", target, c), codes.NotFound},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := td.node.NodePublishVolume(callCtx(t), tc.req)
			wantCode(t, err, tc.want)
		})
	}

	_, err := td.node.NodeUnpublishVolume(callCtx(t), &csi.NodeUnpublishVolumeRequest{VolumeId: "mock-missing", TargetPath: target})
	wantCode(t, err, codes.NotFound)
	_, err = td.node.NodeUnpublishVolume(callCtx(t), &csi.NodeUnpublishVolumeRequest{TargetPath: target})
	wantCode(t, err, codes.InvalidArgument)
	_, err = td.node.NodeUnpublishVolume(callCtx(t), &csi.NodeUnpublishVolumeRequest{VolumeId: vol.GetVolumeId()})
	wantCode(t, err, codes.InvalidArgument)
}

func TestNodeCapabilities(t *testing.T) {
	td := startDriver(t, Config{})
	resp, err := td.node.NodeGetCapabilities(callCtx(t), &csi.NodeGetCapabilitiesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range resp.GetCapabilities() {
		if c.GetRpc().GetType() == csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME {
			t.Fatal("STAGE_UNSTAGE_VOLUME advertised but not implemented")
		}
	}
	_, err = td.node.NodeStageVolume(callCtx(t), &csi.NodeStageVolumeRequest{VolumeId: "x"})
	wantCode(t, err, codes.Unimplemented)
}
