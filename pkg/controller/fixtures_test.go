package controller

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-lib-utils/rpc"
	snapv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"
	snapfake "github.com/kubernetes-csi/external-snapshotter/client/v8/clientset/versioned/fake"
	"google.golang.org/grpc"
	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	k8stesting "k8s.io/client-go/testing"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

	"github.com/csi-protect/external-provisioner/internal/testutil"
	"github.com/csi-protect/external-provisioner/pkg/provisionstate"
)

const (
	testDriver    = "test.csi-protect.io"
	testClass     = "fast"
	testNamespace = "apps"
	testClaimUID  = "0b6d5fa4-54c3-4c4e-8c8a-7d1c3f0e9a21"
)

// fakeCSI is a CSI controller client whose answers a test programs.
type fakeCSI struct {
	csi.ControllerClient
	mu        sync.Mutex
	creates   []*csi.CreateVolumeRequest
	deletes   []*csi.DeleteVolumeRequest
	createFn  func(*csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error)
	deleteFn  func(*csi.DeleteVolumeRequest)
	deleteErr error
}

func (f *fakeCSI) CreateVolume(ctx context.Context, req *csi.CreateVolumeRequest, _ ...grpc.CallOption) (*csi.CreateVolumeResponse, error) {
	f.mu.Lock()
	f.creates = append(f.creates, req)
	fn := f.createFn
	f.mu.Unlock()
	if fn != nil {
		return fn(req)
	}
	return &csi.CreateVolumeResponse{Volume: &csi.Volume{
		VolumeId:      "handle-" + req.Name,
		CapacityBytes: req.CapacityRange.GetRequiredBytes(),
		VolumeContext: map[string]string{"tier": "gold"},
		ContentSource: req.VolumeContentSource,
	}}, nil
}

func (f *fakeCSI) DeleteVolume(ctx context.Context, req *csi.DeleteVolumeRequest, _ ...grpc.CallOption) (*csi.DeleteVolumeResponse, error) {
	f.mu.Lock()
	f.deletes = append(f.deletes, req)
	fn, err := f.deleteFn, f.deleteErr
	f.mu.Unlock()
	if fn != nil {
		fn(req)
	}
	return &csi.DeleteVolumeResponse{}, err
}

func (f *fakeCSI) lastCreate(t *testing.T) *csi.CreateVolumeRequest {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.creates) == 0 {
		t.Fatal("CreateVolume was not called")
	}
	return f.creates[len(f.creates)-1]
}

// env is a provisioner on a fake clientset whose listers read the given
// objects. The clientset is client-go's plain fake, not
// testutil.NewClientset: the listers hold the objects as given (a claim at
// resourceVersion "1"), and a write from such a copy must not conflict.
type env struct {
	client     *fake.Clientset
	snapClient *snapfake.Clientset
	readers    *provisionstate.Readers
	csi        *fakeCSI
	events     *testutil.Events
	opts       Options
	prov       *Provisioner
}

type envObjects struct {
	claims      []*v1.PersistentVolumeClaim
	volumes     []*v1.PersistentVolume
	classes     []*storagev1.StorageClass
	nodes       []*v1.Node
	csiNodes    []*storagev1.CSINode
	attachments []*storagev1.VolumeAttachment
	secrets     []*v1.Secret
	// attributesClasses are served by the API client only, as the
	// provisioner reads them live.
	attributesClasses []*storagev1.VolumeAttributesClass
	// snapshots and contents are served by the snapshot client; grants by
	// the ReferenceGrant lister.
	snapshots []*snapv1.VolumeSnapshot
	contents  []*snapv1.VolumeSnapshotContent
	grants    []*gatewayv1beta1.ReferenceGrant
}

func newEnv(t testing.TB, objs envObjects, mutate ...func(*Options)) *env {
	t.Helper()
	all := slices.Concat(testutil.Objects(objs.claims...), testutil.Objects(objs.volumes...), testutil.Objects(objs.classes...),
		testutil.Objects(objs.nodes...), testutil.Objects(objs.csiNodes...), testutil.Objects(objs.attachments...),
		testutil.Objects(objs.secrets...), testutil.Objects(objs.attributesClasses...))
	snapObjects := append(testutil.Objects(objs.snapshots...), testutil.Objects(objs.contents...)...)
	e := &env{
		client: fake.NewClientset(all...), snapClient: snapfake.NewSimpleClientset(snapObjects...),
		csi: &fakeCSI{}, events: testutil.NewEvents(), readers: provisionstate.NewReaders(),
	}
	e.opts = Options{
		DriverName:                  testDriver,
		Identity:                    "1700000000000-1234-" + testDriver,
		Client:                      e.client,
		CSIClient:                   e.csi,
		EventRecorder:               e.events,
		Calls:                       provisionstate.NewTracker(),
		SnapshotClient:              e.snapClient,
		ProtectSnapshotSources:      true,
		SnapshotReaders:             e.readers,
		ReferenceGrants:             ReferenceGrantIndex(testutil.Indexer(t, objs.grants...)),
		PreventVolumeModeConversion: true,
		ClaimLister:                 corelisters.NewPersistentVolumeClaimLister(testutil.Indexer(t, objs.claims...)),
		VolumeLister:                corelisters.NewPersistentVolumeLister(testutil.Indexer(t, objs.volumes...)),
		ClassLister:                 storagelisters.NewStorageClassLister(testutil.Indexer(t, objs.classes...)),
		NodeLister:                  corelisters.NewNodeLister(testutil.Indexer(t, objs.nodes...)),
		CSINodeLister:               storagelisters.NewCSINodeLister(testutil.Indexer(t, objs.csiNodes...)),
		VolumeAttachmentLister:      storagelisters.NewVolumeAttachmentLister(testutil.Indexer(t, objs.attachments...)),
		PluginCapabilities:          rpc.PluginCapabilitySet{csi.PluginCapability_Service_CONTROLLER_SERVICE: true},
		ControllerCapabilities: rpc.ControllerCapabilitySet{
			csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME:   true,
			csi.ControllerServiceCapability_RPC_CLONE_VOLUME:           true,
			csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT: true,
		},
		Timeout:              10 * time.Second,
		VolumeNamePrefix:     "pvc",
		VolumeNameUUIDLength: -1,
		ImmediateTopology:    true,
		Features:             Features{Topology: true},
	}
	for _, m := range mutate {
		m(&e.opts)
	}
	prov, err := New(e.opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	e.prov = prov
	return e
}

func (e *env) provision(t *testing.T, claim *v1.PersistentVolumeClaim, class *storagev1.StorageClass, node *v1.Node) (*v1.PersistentVolume, controller.ProvisioningState, error) {
	t.Helper()
	return e.prov.Provision(context.Background(), controller.ProvisionOptions{
		StorageClass: class,
		PVName:       "pvc-" + string(claim.UID),
		PVC:          claim,
		SelectedNode: node,
	})
}

func newClass(params map[string]string) *storagev1.StorageClass {
	return testutil.NewClass(testClass, testDriver, testutil.WithParameters(params))
}

// newClaim is a claim of testClass asking for size, ReadWriteOnce unless
// modes say otherwise.
func newClaim(name, size string, modes ...v1.PersistentVolumeAccessMode) *v1.PersistentVolumeClaim {
	opts := []testutil.ClaimOption{testutil.WithUID(testClaimUID), testutil.WithResourceVersion("1"), testutil.WithClass(testClass), testutil.WithSize(size)}
	if len(modes) > 0 {
		opts = append(opts, testutil.WithAccessModes(modes...))
	}
	return testutil.NewClaim(testNamespace, name, opts...)
}

var metaLabelSelector = metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}

// apiClaim reads a claim of testNamespace from the fake API server.
func (e *env) apiClaim(t *testing.T, name string) *v1.PersistentVolumeClaim {
	t.Helper()
	return testutil.Get(t, e.client.CoreV1().PersistentVolumeClaims(testNamespace), name)
}

// claimUpdates are the claims written with update, in order.
func (e *env) claimUpdates() []*v1.PersistentVolumeClaim {
	var out []*v1.PersistentVolumeClaim
	for _, a := range testutil.Actions(e.client.Actions(), testutil.Verb("update"), testutil.On("persistentvolumeclaims")) {
		if c, ok := a.(k8stesting.UpdateAction).GetObject().(*v1.PersistentVolumeClaim); ok {
			out = append(out, c)
		}
	}
	return out
}
