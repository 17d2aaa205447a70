package controller

import (
	"context"
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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/metrics"
	gatewayv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v10/controller"

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

// env is a provisioner on a fake clientset whose listers read the given objects.
type env struct {
	client     *fake.Clientset
	snapClient *snapfake.Clientset
	readers    *provisionstate.Readers
	csi        *fakeCSI
	recorder   *record.FakeRecorder
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
	var all []runtime.Object
	indexer := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	claims, volumes, classes, nodes, csiNodes, vas := indexer(), indexer(), indexer(), indexer(), indexer(), indexer()
	add := func(idx cache.Indexer, o runtime.Object) {
		all = append(all, o)
		if err := idx.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range objs.claims {
		add(claims, o)
	}
	for _, o := range objs.volumes {
		add(volumes, o)
	}
	for _, o := range objs.classes {
		add(classes, o)
	}
	for _, o := range objs.nodes {
		add(nodes, o)
	}
	for _, o := range objs.csiNodes {
		add(csiNodes, o)
	}
	for _, o := range objs.attachments {
		add(vas, o)
	}
	for _, o := range objs.secrets {
		all = append(all, o)
	}
	for _, o := range objs.attributesClasses {
		all = append(all, o)
	}
	var snapObjects []runtime.Object
	for _, o := range objs.snapshots {
		snapObjects = append(snapObjects, o)
	}
	for _, o := range objs.contents {
		snapObjects = append(snapObjects, o)
	}
	grants := indexer()
	for _, o := range objs.grants {
		if err := grants.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{
		client: fake.NewClientset(all...), snapClient: snapfake.NewSimpleClientset(snapObjects...),
		csi: &fakeCSI{}, recorder: record.NewFakeRecorder(100), readers: provisionstate.NewReaders(),
	}
	e.opts = Options{
		DriverName:                  testDriver,
		Identity:                    "1700000000000-1234-" + testDriver,
		Client:                      e.client,
		CSIClient:                   e.csi,
		EventRecorder:               e.recorder,
		Calls:                       provisionstate.NewTracker(),
		SnapshotClient:              e.snapClient,
		ProtectSnapshotSources:      true,
		SnapshotReaders:             e.readers,
		ReferenceGrants:             ReferenceGrantIndex(grants),
		PreventVolumeModeConversion: true,
		ClaimLister:                 corelisters.NewPersistentVolumeClaimLister(claims),
		VolumeLister:                corelisters.NewPersistentVolumeLister(volumes),
		ClassLister:                 storagelisters.NewStorageClassLister(classes),
		NodeLister:                  corelisters.NewNodeLister(nodes),
		CSINodeLister:               storagelisters.NewCSINodeLister(csiNodes),
		VolumeAttachmentLister:      storagelisters.NewVolumeAttachmentLister(vas),
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
	return &storagev1.StorageClass{
		ObjectMeta:  metav1.ObjectMeta{Name: testClass},
		Provisioner: testDriver,
		Parameters:  params,
	}
}

func newClaim(name, size string, modes ...v1.PersistentVolumeAccessMode) *v1.PersistentVolumeClaim {
	if len(modes) == 0 {
		modes = []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	}
	class := testClass
	return &v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, UID: types.UID(testClaimUID), ResourceVersion: "1"},
		Spec: v1.PersistentVolumeClaimSpec{
			AccessModes:      modes,
			StorageClassName: &class,
			Resources: v1.VolumeResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceStorage: resource.MustParse(size),
			}},
		},
	}
}

func newSecret(namespace, name string, data map[string]string) *v1.Secret {
	s := &v1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

var metaLabelSelector = metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}

// registryOf registers the provisioner's metrics in a registry of their own.
func registryOf(m *Metrics) metrics.KubeRegistry {
	r := metrics.NewKubeRegistry()
	r.MustRegister(m.Registerables()...)
	r.CustomMustRegister(m.Collectors()...)
	return r
}
