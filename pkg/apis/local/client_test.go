package local_test

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/csi-protect/external-provisioner/pkg/apis/local"
	localv1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1"
	localv1alpha1 "github.com/csi-protect/external-provisioner/pkg/apis/local/v1alpha1"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned/fake"
	"github.com/csi-protect/external-provisioner/pkg/generated/clientset/versioned/scheme"
	"github.com/csi-protect/external-provisioner/pkg/generated/informers/externalversions"
)

// The clientset, listers and informers in pkg/generated/ are generated from
// the genclient tags on the kinds; this checks the wiring that the tags and
// the API packages' register.go decide. The kinds must be in the clientset's
// scheme, its clients must use the resources that the CRDs serve
// (LocalVolumesResource, LocalVolumeSetsResource) in a namespace, with
// UpdateStatus and Patch of "status" writing the status subresource, and the
// informers from the factory must list them into listers that keep the
// namespaces apart. The objects are written before the informers start, so
// their LIST sees them all and the test waits only for the caches to sync.
func TestGeneratedClients(t *testing.T) {
	ctx := t.Context()

	// The clientset's scheme decodes both kinds.
	for _, c := range []struct {
		obj  runtime.Object
		want schema.GroupVersionKind
	}{
		{&localv1.LocalVolume{}, localv1.SchemeGroupVersion.WithKind(local.KindLocalVolume)},
		{&localv1alpha1.LocalVolumeSet{}, localv1alpha1.SchemeGroupVersion.WithKind(local.KindLocalVolumeSet)},
	} {
		gvks, _, err := scheme.Scheme.ObjectKinds(c.obj)
		if err != nil || len(gvks) != 1 || gvks[0] != c.want {
			t.Errorf("clientset scheme: %T is %v (error %v), want %v", c.obj, gvks, err, c.want)
		}
	}

	client := fake.NewSimpleClientset()

	// Two objects of each kind, in two namespaces and with the same name, so
	// that a client or lister that ignored the namespace would be caught.
	for _, ns := range []string{"ns-a", "ns-b"} {
		lv := &localv1.LocalVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "disks", Namespace: ns},
			Spec: localv1.LocalVolumeSpec{StorageClassDevices: []localv1.StorageClassDevice{{
				StorageClassName: "local-sc", DevicePaths: []string{"/dev/sdb"},
			}}},
		}
		if _, err := client.LocalV1().LocalVolumes(ns).Create(ctx, lv, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create LocalVolume %s/disks: %v", ns, err)
		}
		lvs := &localv1alpha1.LocalVolumeSet{
			ObjectMeta: metav1.ObjectMeta{Name: "disks", Namespace: ns},
			Spec:       localv1alpha1.LocalVolumeSetSpec{StorageClassName: "local-sc"},
		}
		if _, err := client.LocalV1alpha1().LocalVolumeSets(ns).Create(ctx, lvs, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create LocalVolumeSet %s/disks: %v", ns, err)
		}
	}
	for _, a := range client.Actions() {
		var want schema.GroupVersionResource
		switch a.GetResource().Resource {
		case "localvolumes":
			want = localv1.LocalVolumesResource
		default:
			want = localv1alpha1.LocalVolumeSetsResource
		}
		if a.GetVerb() != "create" || a.GetResource() != want || a.GetNamespace() == "" {
			t.Errorf("action %s %v in namespace %q, want create %v in a namespace", a.GetVerb(), a.GetResource(), a.GetNamespace(), want)
		}
	}

	// The status goes through the status subresource: UpdateStatus for the
	// LocalVolume, a merge patch of "status" for the LocalVolumeSet.
	lv, err := client.LocalV1().LocalVolumes("ns-a").Get(ctx, "disks", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lv.Status.ObservedGeneration = 7
	client.ClearActions()
	if _, err := client.LocalV1().LocalVolumes("ns-a").UpdateStatus(ctx, lv, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("UpdateStatus: %v", err)
	}
	if _, err := client.LocalV1alpha1().LocalVolumeSets("ns-a").Patch(ctx, "disks", types.MergePatchType,
		[]byte(`{"status":{"totalProvisionedDeviceCount":3}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("Patch status: %v", err)
	}
	for _, a := range client.Actions() {
		if a.GetSubresource() != "status" || a.GetNamespace() != "ns-a" {
			t.Errorf("action %s %v/%s in namespace %q, want the status subresource in ns-a", a.GetVerb(), a.GetResource(), a.GetSubresource(), a.GetNamespace())
		}
	}

	// The informers list what the clients wrote, into the listers.
	factory := externalversions.NewSharedInformerFactory(client, 0)
	lvInformer := factory.Local().V1().LocalVolumes()
	lvsInformer := factory.Local().V1alpha1().LocalVolumeSets()
	// Informer() registers each informer with the factory before Start.
	lvSynced := lvInformer.Informer().HasSynced
	lvsSynced := lvsInformer.Informer().HasSynced
	// The generic lookup by resource must find the same informers.
	for _, gvr := range []schema.GroupVersionResource{localv1.LocalVolumesResource, localv1alpha1.LocalVolumeSetsResource} {
		if _, err := factory.ForResource(gvr); err != nil {
			t.Errorf("ForResource(%v): %v", gvr, err)
		}
	}
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	if !cache.WaitForCacheSync(ctx.Done(), lvSynced, lvsSynced) {
		t.Fatal("informers did not sync")
	}

	if all, err := lvInformer.Lister().List(labels.Everything()); err != nil || len(all) != 2 {
		t.Errorf("LocalVolume lister List: %d objects, error %v; want 2", len(all), err)
	}
	if inA, err := lvInformer.Lister().LocalVolumes("ns-a").List(labels.Everything()); err != nil || len(inA) != 1 {
		t.Errorf("LocalVolume lister List in ns-a: %d objects, error %v; want 1", len(inA), err)
	}
	gotLV, err := lvInformer.Lister().LocalVolumes("ns-a").Get("disks")
	if err != nil {
		t.Fatalf("LocalVolume lister Get ns-a/disks: %v", err)
	}
	if gotLV.Namespace != "ns-a" || gotLV.Status.ObservedGeneration != 7 ||
		len(gotLV.Spec.StorageClassDevices) != 1 || gotLV.Spec.StorageClassDevices[0].DevicePaths[0] != "/dev/sdb" {
		t.Errorf("LocalVolume from the lister: %+v", gotLV)
	}
	if _, err := lvInformer.Lister().LocalVolumes("ns-c").Get("disks"); !apierrors.IsNotFound(err) {
		t.Errorf("LocalVolume lister Get ns-c/disks: error %v, want NotFound", err)
	}

	if all, err := lvsInformer.Lister().List(labels.Everything()); err != nil || len(all) != 2 {
		t.Errorf("LocalVolumeSet lister List: %d objects, error %v; want 2", len(all), err)
	}
	gotLVS, err := lvsInformer.Lister().LocalVolumeSets("ns-a").Get("disks")
	if err != nil {
		t.Fatalf("LocalVolumeSet lister Get ns-a/disks: %v", err)
	}
	if gotLVS.Spec.StorageClassName != "local-sc" || !ptr.Equal(gotLVS.Status.TotalProvisionedDeviceCount, ptr.To[int32](3)) {
		t.Errorf("LocalVolumeSet from the lister: %+v", gotLVS)
	}
	otherLVS, err := lvsInformer.Lister().LocalVolumeSets("ns-b").Get("disks")
	if err != nil {
		t.Fatalf("LocalVolumeSet lister Get ns-b/disks: %v", err)
	}
	if otherLVS.Status.TotalProvisionedDeviceCount != nil {
		t.Errorf("the status patch in ns-a reached ns-b: %+v", otherLVS.Status)
	}
}
