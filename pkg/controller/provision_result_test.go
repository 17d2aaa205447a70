package controller

import (
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
)

func TestProvisionBuildsPVFromVolume(t *testing.T) {
	e := newEnv(t, envObjects{})
	retain := v1.PersistentVolumeReclaimRetain
	class := newClass(map[string]string{"csi.storage.k8s.io/fstype": "ext4"})
	class.ReclaimPolicy = &retain
	class.MountOptions = []string{"noatime"}
	pv, state, err := e.provision(t, newClaim("db", "2Gi"), class, nil)
	if err != nil || state != controller.ProvisioningFinished {
		t.Fatalf("state %s err %v", state, err)
	}
	src := pv.Spec.CSI
	switch {
	case src.Driver != testDriver || src.VolumeHandle != "handle-pvc-"+testClaimUID || src.FSType != "ext4":
		t.Fatalf("CSI source = %+v", src)
	case src.VolumeAttributes["tier"] != "gold" || src.VolumeAttributes[ProvisionerIDKey] != e.opts.Identity:
		t.Fatalf("volume attributes = %v, want the volume context and the provisioner identity", src.VolumeAttributes)
	case pv.Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimRetain:
		t.Fatalf("reclaim policy = %s, want the class's Retain", pv.Spec.PersistentVolumeReclaimPolicy)
	case len(pv.Spec.MountOptions) != 1 || pv.Spec.MountOptions[0] != "noatime":
		t.Fatalf("mount options = %v", pv.Spec.MountOptions)
	case pv.Spec.StorageClassName != testClass || *pv.Spec.VolumeMode != v1.PersistentVolumeFilesystem:
		t.Fatalf("class %q mode %v", pv.Spec.StorageClassName, *pv.Spec.VolumeMode)
	case pv.Spec.AccessModes[0] != v1.ReadWriteOnce:
		t.Fatalf("access modes = %v", pv.Spec.AccessModes)
	}
	capacity := pv.Spec.Capacity[v1.ResourceStorage]
	if capacity.Value() != 2<<30 {
		t.Fatalf("capacity = %s, want 2Gi", capacity.String())
	}
}

func TestProvisionDefaultsReclaimPolicyToDelete(t *testing.T) {
	e := newEnv(t, envObjects{})
	pv, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), nil)
	if err != nil || pv.Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimDelete {
		t.Fatalf("pv %v err %v, want reclaim policy Delete", pv, err)
	}
}

func TestProvisionTakesLargerCapacityFromDriver(t *testing.T) {
	e := newEnv(t, envObjects{})
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "v", CapacityBytes: 5 << 30}}, nil
	}
	pv, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := pv.Spec.Capacity[v1.ResourceStorage]; got.Value() != 5<<30 {
		t.Fatalf("capacity = %s, want the driver's 5Gi", got.String())
	}
}

func TestProvisionDeletesVolumeSmallerThanRequested(t *testing.T) {
	e := newEnv(t, envObjects{})
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "small", CapacityBytes: 1 << 20}}, nil
	}
	pv, state, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), nil)
	if pv != nil || err == nil || !strings.Contains(err.Error(), "less than") {
		t.Fatalf("pv %v err %v, want a capacity refusal", pv, err)
	}
	if state != controller.ProvisioningFinished {
		t.Fatalf("state = %s, want Finished once the volume is deleted", state)
	}
	if len(e.csi.deletes) != 1 || e.csi.deletes[0].VolumeId != "small" {
		t.Fatalf("deletes = %v, want the too-small volume deleted", e.csi.deletes)
	}
}

func TestProvisionKeepsRetryingWhenUndoFails(t *testing.T) {
	e := newEnv(t, envObjects{})
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "small", CapacityBytes: 1}}, nil
	}
	e.csi.deleteErr = status.Error(codes.Unavailable, "down")
	_, state, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), nil)
	if err == nil || state != controller.ProvisioningInBackground {
		t.Fatalf("state %s err %v: a volume that may still exist must be retried", state, err)
	}
}

func TestProvisionMapsCreateVolumeErrors(t *testing.T) {
	const key = "topology.test.csi-protect.io/zone"
	node := testutil.NewNode("node-1", testutil.WithLabel(key, "z1"))
	csiNode := testutil.NewCSINode("node-1", map[string][]string{testDriver: {key}})
	cases := []struct {
		name     string
		code     codes.Code
		node     *v1.Node
		topology bool
		want     controller.ProvisioningState
	}{
		{"final", codes.InvalidArgument, nil, false, controller.ProvisioningFinished},
		{"timeout", codes.DeadlineExceeded, nil, false, controller.ProvisioningInBackground},
		{"unavailable", codes.Unavailable, nil, false, controller.ProvisioningInBackground},
		// As upstream: another node can only help a driver that takes
		// topology, for a claim the scheduler placed.
		{"exhausted on selected node with topology", codes.ResourceExhausted, node, true, controller.ProvisioningReschedule},
		{"exhausted on selected node without topology", codes.ResourceExhausted, node, false, controller.ProvisioningFinished},
		{"exhausted without selected node", codes.ResourceExhausted, nil, true, controller.ProvisioningFinished},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envObjects{nodes: []*v1.Node{node}, csiNodes: []*storagev1.CSINode{csiNode}}, func(o *Options) {
				o.Features.Topology = tc.topology
				o.PluginCapabilities[csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS] = tc.topology
			})
			e.csi.createFn = func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
				return nil, status.Error(tc.code, "driver says no")
			}
			_, state, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), tc.node)
			if err == nil || state != tc.want {
				t.Fatalf("state %s err %v, want %s", state, err, tc.want)
			}
		})
	}
}

func TestProvisionReadOnlyOnlyForReadOnlyClaimsWhenAsked(t *testing.T) {
	cases := []struct {
		flag bool
		mode v1.PersistentVolumeAccessMode
		want bool
	}{
		{true, v1.ReadOnlyMany, true},
		{true, v1.ReadWriteOnce, false},
		{false, v1.ReadOnlyMany, false},
	}
	for _, tc := range cases {
		e := newEnv(t, envObjects{}, func(o *Options) { o.ControllerPublishReadOnly = tc.flag })
		pv, _, err := e.provision(t, newClaim("db", "1Gi", tc.mode), newClass(nil), nil)
		if err != nil || pv.Spec.CSI.ReadOnly != tc.want {
			t.Fatalf("flag %v mode %s: readOnly %v err %v, want %v", tc.flag, tc.mode, pv.Spec.CSI.ReadOnly, err, tc.want)
		}
	}
}

func TestProvisionSendsTopologyAndSetsNodeAffinity(t *testing.T) {
	const key = "topology.test.csi-protect.io/zone"
	node := testutil.NewNode("node-1", testutil.WithLabel(key, "z1"))
	csiNode := testutil.NewCSINode("node-1", map[string][]string{testDriver: {key}})
	e := newEnv(t, envObjects{nodes: []*v1.Node{node}, csiNodes: []*storagev1.CSINode{csiNode}}, func(o *Options) {
		o.PluginCapabilities[csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS] = true
	})
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{
			VolumeId: "v", CapacityBytes: req.CapacityRange.RequiredBytes,
			AccessibleTopology: req.AccessibilityRequirements.Preferred[:1],
		}}, nil
	}
	pv, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), node)
	if err != nil {
		t.Fatal(err)
	}
	reqs := e.csi.lastCreate(t).AccessibilityRequirements
	if reqs == nil || len(reqs.Requisite) != 1 || reqs.Requisite[0].Segments[key] != "z1" {
		t.Fatalf("accessibility requirements = %v, want zone z1", reqs)
	}
	terms := pv.Spec.NodeAffinity.Required.NodeSelectorTerms
	if len(terms) != 1 || terms[0].MatchExpressions[0].Key != key || terms[0].MatchExpressions[0].Values[0] != "z1" {
		t.Fatalf("node affinity = %v", pv.Spec.NodeAffinity)
	}
}

func TestProvisionWithoutTopologyGateSendsNoRequirements(t *testing.T) {
	e := newEnv(t, envObjects{}, func(o *Options) {
		o.PluginCapabilities[csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS] = true
		o.Features.Topology = false
	})
	pv, _, err := e.provision(t, newClaim("db", "1Gi"), newClass(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.csi.lastCreate(t).AccessibilityRequirements != nil || pv.Spec.NodeAffinity != nil {
		t.Fatal("topology must not be used with the Topology gate off")
	}
}
