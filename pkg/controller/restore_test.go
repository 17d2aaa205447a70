package controller

import (
	"errors"
	"strings"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/finalizer"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const (
	testSnapshot       = "nightly"
	testSnapshotUID    = "5e1f0c2a-9d7b-4c36-b0a4-0c9f7a1d2e33"
	testContent        = "snapcontent-5e1f0c2a"
	testSnapshotHandle = "snap-handle-42"
)

// restoreFixture is a claim restoring 1Gi from a ready 1Gi snapshot of a
// filesystem volume of the test driver, and that snapshot's content.
func restoreFixture() (*v1.PersistentVolumeClaim, *snapv1.VolumeSnapshot, *snapv1.VolumeSnapshotContent) {
	claim := newClaim("restored", "1Gi")
	claim.Spec.VolumeMode = ptr.To(v1.PersistentVolumeFilesystem)
	claim.Spec.DataSource = &v1.TypedLocalObjectReference{APIGroup: ptr.To(provisionstate.SnapshotAPIGroup), Kind: provisionstate.SnapshotKind, Name: testSnapshot}
	claim.Spec.DataSourceRef = &v1.TypedObjectReference{APIGroup: ptr.To(provisionstate.SnapshotAPIGroup), Kind: provisionstate.SnapshotKind, Name: testSnapshot}
	snapshot := &snapv1.VolumeSnapshot{
		ObjectMeta: metav1.ObjectMeta{Name: testSnapshot, Namespace: testNamespace, UID: testSnapshotUID, ResourceVersion: "7"},
		Status: &snapv1.VolumeSnapshotStatus{
			BoundVolumeSnapshotContentName: ptr.To(testContent),
			ReadyToUse:                     ptr.To(true),
			RestoreSize:                    ptr.To(resource.MustParse("1Gi")),
		},
	}
	content := &snapv1.VolumeSnapshotContent{
		ObjectMeta: metav1.ObjectMeta{Name: testContent, ResourceVersion: "3"},
		Spec: snapv1.VolumeSnapshotContentSpec{
			Driver:            testDriver,
			VolumeSnapshotRef: v1.ObjectReference{Namespace: testNamespace, Name: testSnapshot, UID: testSnapshotUID},
			SourceVolumeMode:  ptr.To(v1.PersistentVolumeFilesystem),
		},
		Status: &snapv1.VolumeSnapshotContentStatus{SnapshotHandle: ptr.To(testSnapshotHandle)},
	}
	return claim, snapshot, content
}

func restoreEnv(t *testing.T, claim *v1.PersistentVolumeClaim, snapshot *snapv1.VolumeSnapshot, content *snapv1.VolumeSnapshotContent, mutate ...func(*Options)) *env {
	t.Helper()
	objs := envObjects{claims: []*v1.PersistentVolumeClaim{claim}}
	if snapshot != nil {
		objs.snapshots = append(objs.snapshots, snapshot)
	}
	if content != nil {
		objs.contents = append(objs.contents, content)
	}
	return newEnv(t, objs, mutate...)
}

func (e *env) snapshot(t *testing.T, namespace, name string) *snapv1.VolumeSnapshot {
	t.Helper()
	return testutil.Get(t, e.snapClient.SnapshotV1().VolumeSnapshots(namespace), name)
}

func TestRestoreAsksForTheSnapshotHandle(t *testing.T) {
	claim, snapshot, content := restoreFixture()
	e := restoreEnv(t, claim, snapshot, content)

	pv, state, err := e.provision(t, claim, newClass(nil), nil)
	if err != nil || state != controller.ProvisioningFinished || pv == nil {
		t.Fatalf("Provision = %v, %s, %v; want a PV", pv, state, err)
	}
	source := e.csi.lastCreate(t).GetVolumeContentSource().GetSnapshot()
	if source.GetSnapshotId() != testSnapshotHandle {
		t.Fatalf("CreateVolume content source = %v, want snapshot %s", e.csi.lastCreate(t).GetVolumeContentSource(), testSnapshotHandle)
	}
}

func TestRestoreProtectsTheSnapshotBeforeCreateVolume(t *testing.T) {
	claim, snapshot, content := restoreFixture()
	e := restoreEnv(t, claim, snapshot, content)
	source := cache.ObjectName{Namespace: testNamespace, Name: testSnapshot}
	e.csi.createFn = func(req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
		if !finalizer.Has(e.snapshot(t, testNamespace, testSnapshot), provisionstate.SnapshotSourceProtectionFinalizer) {
			t.Error("CreateVolume runs while the snapshot has no source-protection finalizer")
		}
		if !e.readers.Reading(source) {
			t.Error("CreateVolume runs while the snapshot is not recorded as read")
		}
		return &csi.CreateVolumeResponse{Volume: &csi.Volume{VolumeId: "restored", CapacityBytes: req.CapacityRange.GetRequiredBytes(), ContentSource: req.VolumeContentSource}}, nil
	}
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatal(err)
	}
	if e.readers.Reading(source) {
		t.Error("the snapshot is still recorded as read after CreateVolume returned")
	}
	// The finalizer stays: the protection controller removes it once the
	// claim has its volume.
	if !finalizer.Has(e.snapshot(t, testNamespace, testSnapshot), provisionstate.SnapshotSourceProtectionFinalizer) {
		t.Error("the provisioner removed the finalizer itself")
	}
}

func TestRestoreRefusals(t *testing.T) {
	cases := []struct {
		name    string
		objects func(*v1.PersistentVolumeClaim, *snapv1.VolumeSnapshot, *snapv1.VolumeSnapshotContent)
		opts    func(*Options)
		want    string
	}{
		{"snapshot missing", func(_ *v1.PersistentVolumeClaim, s *snapv1.VolumeSnapshot, _ *snapv1.VolumeSnapshotContent) {
			s.Name = "other"
		}, nil, "not found"},
		{"not bound", func(_ *v1.PersistentVolumeClaim, s *snapv1.VolumeSnapshot, _ *snapv1.VolumeSnapshotContent) {
			s.Status.BoundVolumeSnapshotContentName = nil
		}, nil, "error getting handle for DataSource Type VolumeSnapshot by Name nightly: snapshot nightly not bound"},
		{"content missing", func(_ *v1.PersistentVolumeClaim, _ *snapv1.VolumeSnapshot, c *snapv1.VolumeSnapshotContent) {
			c.Name = "other"
		}, nil, "error getting snapshotcontent snapcontent-5e1f0c2a for snapshot nightly"},
		{"content bound to another snapshot", func(_ *v1.PersistentVolumeClaim, _ *snapv1.VolumeSnapshot, c *snapv1.VolumeSnapshotContent) {
			c.Spec.VolumeSnapshotRef.UID = "a-recreated-snapshot"
		}, nil, "snapshotcontent snapcontent-5e1f0c2a for snapshot nightly is bound to a different snapshot"},
		{"content of another driver", func(_ *v1.PersistentVolumeClaim, _ *snapv1.VolumeSnapshot, c *snapv1.VolumeSnapshotContent) {
			c.Spec.Driver = "other.csi.example.com"
		}, nil, "snapshotcontent snapcontent-5e1f0c2a for snapshot nightly is not handled by CSI driver of StorageClass fast"},
		{"not ready", func(_ *v1.PersistentVolumeClaim, s *snapv1.VolumeSnapshot, _ *snapv1.VolumeSnapshotContent) {
			s.Status.ReadyToUse = ptr.To(false)
		}, nil, "snapshot nightly is not Ready"},
		{"no handle", func(_ *v1.PersistentVolumeClaim, _ *snapv1.VolumeSnapshot, c *snapv1.VolumeSnapshotContent) {
			c.Status = nil
		}, nil, "snapshot handle nightly is not available"},
		{"claim smaller than the restore size", func(c *v1.PersistentVolumeClaim, _ *snapv1.VolumeSnapshot, _ *snapv1.VolumeSnapshotContent) {
			c.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("512Mi")
		}, nil, "requested volume size 536870912 is less than the size 1073741824 for the source snapshot nightly"},
		{"block claim from a filesystem snapshot", func(c *v1.PersistentVolumeClaim, _ *snapv1.VolumeSnapshot, _ *snapv1.VolumeSnapshotContent) {
			c.Spec.VolumeMode = ptr.To(v1.PersistentVolumeBlock)
		}, nil, "requested volume apps/restored modifies the mode of the source volume but does not have permission to do so. " + AnnAllowVolumeModeChange + " annotation is not present on snapshotcontent snapcontent-5e1f0c2a"},
		{"mode change refused by the content", func(c *v1.PersistentVolumeClaim, _ *snapv1.VolumeSnapshot, content *snapv1.VolumeSnapshotContent) {
			c.Spec.VolumeMode = ptr.To(v1.PersistentVolumeBlock)
			content.Annotations = map[string]string{AnnAllowVolumeModeChange: "false"}
		}, nil, AnnAllowVolumeModeChange + " is set to false on snapshotcontent snapcontent-5e1f0c2a"},
		{"mode change annotation not a boolean", func(c *v1.PersistentVolumeClaim, _ *snapv1.VolumeSnapshot, content *snapv1.VolumeSnapshotContent) {
			c.Spec.VolumeMode = ptr.To(v1.PersistentVolumeBlock)
			content.Annotations = map[string]string{AnnAllowVolumeModeChange: "sure"}
		}, nil, "failed to convert " + AnnAllowVolumeModeChange + " annotation value to boolean with error: "},
		{"snapshot being deleted", func(_ *v1.PersistentVolumeClaim, s *snapv1.VolumeSnapshot, _ *snapv1.VolumeSnapshotContent) {
			s.DeletionTimestamp = &metav1.Time{}
			s.Finalizers = []string{"snapshot.storage.kubernetes.io/volumesnapshot-bound-protection"}
		}, nil, "error getting handle for DataSource Type VolumeSnapshot by Name nightly: snapshot nightly is being deleted"},
		{"driver cannot restore", nil, func(o *Options) {
			o.ControllerCapabilities[csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT] = false
		}, "CSI driver does not support snapshot restore: controller CREATE_DELETE_SNAPSHOT capability is not reported"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			claim, snapshot, content := restoreFixture()
			if tc.objects != nil {
				tc.objects(claim, snapshot, content)
			}
			opts := func(*Options) {}
			if tc.opts != nil {
				opts = tc.opts
			}
			e := restoreEnv(t, claim, snapshot, content, opts)
			_, state, err := e.provision(t, claim, newClass(nil), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
			if state == controller.ProvisioningInBackground || len(e.csi.creates) != 0 {
				t.Fatalf("state %s after %d CreateVolume calls: a refused restore must create nothing", state, len(e.csi.creates))
			}
		})
	}
}

func TestVolumeModeChangeAllowed(t *testing.T) {
	cases := []struct {
		name string
		ann  map[string]string
		opts func(*Options)
	}{
		{"by the content's annotation", map[string]string{AnnAllowVolumeModeChange: "true"}, nil},
		{"with --prevent-volume-mode-conversion=false", nil, func(o *Options) { o.PreventVolumeModeConversion = false }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			claim, snapshot, content := restoreFixture()
			claim.Spec.VolumeMode = ptr.To(v1.PersistentVolumeBlock)
			content.Annotations = tc.ann
			opts := func(*Options) {}
			if tc.opts != nil {
				opts = tc.opts
			}
			e := restoreEnv(t, claim, snapshot, content, opts)
			if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
				t.Fatalf("Provision: %v", err)
			}
		})
	}
}

func TestRestoreGoesOnWhileTheProtectedSnapshotIsDeleted(t *testing.T) {
	// An earlier attempt protected the snapshot and may have started
	// CreateVolume: going on settles that volume instead of leaking it.
	claim, snapshot, content := restoreFixture()
	snapshot.DeletionTimestamp = &metav1.Time{}
	snapshot.Finalizers = []string{provisionstate.SnapshotSourceProtectionFinalizer}
	e := restoreEnv(t, claim, snapshot, content)
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	if len(e.csi.creates) != 1 {
		t.Fatalf("%d CreateVolume calls, want 1", len(e.csi.creates))
	}
}

func TestRestoreWithoutRightsToProtectGoesOnWithAnEvent(t *testing.T) {
	// Upstream v5's ClusterRole grants get and list on volumesnapshots only.
	claim, snapshot, content := restoreFixture()
	e := restoreEnv(t, claim, snapshot, content)
	testutil.FailNext(e.snapClient, -1, apierrors.NewForbidden(schema.GroupResource{Group: provisionstate.SnapshotAPIGroup, Resource: "volumesnapshots"}, testSnapshot, errors.New("RBAC")),
		testutil.Verb("update"), testutil.On("volumesnapshots"))
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	if len(e.csi.creates) != 1 {
		t.Fatalf("%d CreateVolume calls, want 1", len(e.csi.creates))
	}
	wantEvent(t, e, ReasonSnapshotSourceUnprotected)
}

func TestRestoreUnprotectedWhenNothingWouldReleaseTheSnapshot(t *testing.T) {
	claim, snapshot, content := restoreFixture()
	e := restoreEnv(t, claim, snapshot, content, func(o *Options) { o.ProtectSnapshotSources = false })
	if _, _, err := e.provision(t, claim, newClass(nil), nil); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	if finalizer.Has(e.snapshot(t, testNamespace, testSnapshot), provisionstate.SnapshotSourceProtectionFinalizer) {
		t.Error("finalizer added although no controller would remove it")
	}
	wantEvent(t, e, ReasonSnapshotSourceUnprotected)
}

func TestCrossNamespaceRestore(t *testing.T) {
	grant := func(toName string) *gatewayv1beta1.ReferenceGrant {
		g := &gatewayv1beta1.ReferenceGrant{
			ObjectMeta: metav1.ObjectMeta{Name: "let-apps-restore", Namespace: "golden"},
			Spec: gatewayv1beta1.ReferenceGrantSpec{
				From: []gatewayv1beta1.ReferenceGrantFrom{{Group: "", Kind: "PersistentVolumeClaim", Namespace: testNamespace}},
				To:   []gatewayv1beta1.ReferenceGrantTo{{Group: provisionstate.SnapshotAPIGroup, Kind: provisionstate.SnapshotKind}},
			},
		}
		if toName != "" {
			g.Spec.To[0].Name = ptr.To(gatewayv1beta1.ObjectName(toName))
		}
		return g
	}
	cases := []struct {
		name   string
		gate   bool
		grants []*gatewayv1beta1.ReferenceGrant
		want   string // "" for a restore
	}{
		{"gate off", false, []*gatewayv1beta1.ReferenceGrant{grant("")}, "dataSourceRef namespace specified but the CrossNamespaceVolumeDataSource feature is disabled"},
		{"no grant", true, nil, "accessing golden/nightly of VolumeSnapshot dataSource from apps/restored isn't allowed"},
		{"grant of another snapshot", true, []*gatewayv1beta1.ReferenceGrant{grant("weekly")}, "accessing golden/nightly of VolumeSnapshot dataSource from apps/restored isn't allowed"},
		{"grant of every snapshot", true, []*gatewayv1beta1.ReferenceGrant{grant("")}, ""},
		{"grant of this snapshot", true, []*gatewayv1beta1.ReferenceGrant{grant(testSnapshot)}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			claim, snapshot, content := restoreFixture()
			snapshot.Namespace = "golden"
			content.Spec.VolumeSnapshotRef.Namespace = "golden"
			claim.Spec.DataSource = nil
			claim.Spec.DataSourceRef.Namespace = ptr.To("golden")
			e := newEnv(t, envObjects{
				claims: []*v1.PersistentVolumeClaim{claim}, snapshots: []*snapv1.VolumeSnapshot{snapshot},
				contents: []*snapv1.VolumeSnapshotContent{content}, grants: tc.grants,
			}, func(o *Options) { o.Features.CrossNamespaceVolumeDataSource = tc.gate })
			_, _, err := e.provision(t, claim, newClass(nil), nil)
			if tc.want == "" {
				if err != nil || len(e.csi.creates) != 1 {
					t.Fatalf("Provision: %v after %d CreateVolume calls, want a restore", err, len(e.csi.creates))
				}
				if !finalizer.Has(e.snapshot(t, "golden", testSnapshot), provisionstate.SnapshotSourceProtectionFinalizer) {
					t.Error("the snapshot of the other namespace is not protected")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(e.csi.creates) != 0 {
				t.Fatalf("Provision: %v after %d CreateVolume calls, want a refusal mentioning %q", err, len(e.csi.creates), tc.want)
			}
		})
	}
}

// wantEvent fails unless the recorder got an event of reason.
func wantEvent(t *testing.T, e *env, reason string) {
	t.Helper()
	if len(e.events.WithReason(reason)) == 0 {
		t.Fatalf("no %s event", reason)
	}
}
